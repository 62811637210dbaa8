import { useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { session } from '../session';
import { signUp } from '../api/account';
import { InlineError, useInlineSubmit } from '../ui/inline-error';
import { EmailField, TextField } from '../ui/fields';
import { ForgotPasswordLink } from './forgot-password';
import { t } from '../i18n/index.js';

/** Log in, or sign up with a name; the session token is kept for the next visit. */
export function AuthForm({ onDone }: { onDone?: () => void }) {
  const [mode, setMode] = useState<'login' | 'signup'>('login');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const { error, busy, submit } = useInlineSubmit();
  const logIn = async (event: Event) => {
    const answer = await submit(event, () =>
      mode === 'login'
        ? ok(api.POST('/api/auth/login', { body: { email, password } }))
        : signUp(email, password, name.trim() || undefined),
    );
    if (!answer) return;
    session.signIn(answer.token, answer.user);
    onDone?.();
  };
  return (
    <form onSubmit={logIn} class="form" aria-label={mode === 'login' ? t('auth:form.logIn') : t('auth:form.signUp')}>
      <div class="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={mode === 'login'} onClick={() => setMode('login')}>
          {t('auth:form.logIn')}
        </button>
        <button type="button" role="tab" aria-selected={mode === 'signup'} onClick={() => setMode('signup')}>
          {t('auth:form.signUp')}
        </button>
      </div>
      {mode === 'signup' && (
        <TextField label={t('auth:fields.name')} value={name} onInput={setName} autoComplete="name" />
      )}
      <EmailField label={t('auth:fields.email')} value={email} onInput={setEmail} />
      <TextField
        label={t('auth:fields.password')}
        type="password"
        value={password}
        onInput={setPassword}
        autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
        minLength={mode === 'signup' ? 8 : undefined}
        required
      />
      <InlineError message={error} />
      <button type="submit" disabled={busy}>
        {mode === 'login' ? t('auth:form.logIn') : t('auth:form.createAccount')}
      </button>
      {mode === 'login' && <ForgotPasswordLink />}
    </form>
  );
}
