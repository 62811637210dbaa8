import { useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { session } from '../session';
import { InlineError, useInlineError } from '../ui/inline-error';
import { ForgotPasswordLink } from './forgot-password';

/** Log in, or sign up with a name; the session token is kept for the next visit. */
export function AuthForm({ onDone }: { onDone?: () => void }) {
  const [mode, setMode] = useState<'login' | 'signup'>('login');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const { error, attempt } = useInlineError();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    const answer = await attempt(() =>
      mode === 'login'
        ? ok(api.POST('/api/auth/login', { body: { email, password } }))
        : ok(api.POST('/api/auth/signup', { body: { email, password, ...(name.trim() && { name: name.trim() }) } })),
    );
    setBusy(false);
    if (!answer) return;
    session.signIn(answer.token, answer.user);
    onDone?.();
  };
  return (
    <form onSubmit={submit} class="form" aria-label={mode === 'login' ? 'Log in' : 'Sign up'}>
      <div class="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={mode === 'login'} onClick={() => setMode('login')}>
          Log in
        </button>
        <button type="button" role="tab" aria-selected={mode === 'signup'} onClick={() => setMode('signup')}>
          Sign up
        </button>
      </div>
      {mode === 'signup' && (
        <label>
          Name <input value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="name" />
        </label>
      )}
      <label>
        E-mail{' '}
        <input
          type="email"
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
          autoComplete="email"
          required
        />
      </label>
      <label>
        Password
        <input
          type="password"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
          minLength={mode === 'signup' ? 8 : undefined}
          required
        />
      </label>
      <InlineError message={error} />
      <button type="submit" disabled={busy}>
        {mode === 'login' ? 'Log in' : 'Create account'}
      </button>
      {mode === 'login' && <ForgotPasswordLink />}
    </form>
  );
}
