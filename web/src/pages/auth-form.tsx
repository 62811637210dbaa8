import { useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { session } from '../session';
import { InlineError, useInlineSubmit } from '../ui/inline-error';
import { EmailField, TextField } from '../ui/fields';
import { ForgotPasswordLink } from './forgot-password';

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
        : ok(api.POST('/api/auth/signup', { body: { email, password, ...(name.trim() && { name: name.trim() }) } })),
    );
    if (!answer) return;
    session.signIn(answer.token, answer.user);
    onDone?.();
  };
  return (
    <form onSubmit={logIn} class="form" aria-label={mode === 'login' ? 'Log in' : 'Sign up'}>
      <div class="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={mode === 'login'} onClick={() => setMode('login')}>
          Log in
        </button>
        <button type="button" role="tab" aria-selected={mode === 'signup'} onClick={() => setMode('signup')}>
          Sign up
        </button>
      </div>
      {mode === 'signup' && <TextField label="Name" value={name} onInput={setName} autoComplete="name" />}
      <EmailField label="E-mail" value={email} onInput={setEmail} />
      <TextField
        label="Password"
        type="password"
        value={password}
        onInput={setPassword}
        autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
        minLength={mode === 'signup' ? 8 : undefined}
        required
      />
      <InlineError message={error} />
      <button type="submit" disabled={busy}>
        {mode === 'login' ? 'Log in' : 'Create account'}
      </button>
      {mode === 'login' && <ForgotPasswordLink />}
    </form>
  );
}
