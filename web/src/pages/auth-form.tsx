import { useState } from 'preact/hooks';
import { api, messageOf, ok } from '../api/client';
import { session } from '../session';

/** Log in, or sign up with a name; the session token is kept for the next visit. */
export function AuthForm({ onDone }: { onDone?: () => void }) {
  const [mode, setMode] = useState<'login' | 'signup'>('login');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      const answer =
        mode === 'login'
          ? await ok(api.POST('/api/auth/login', { body: { email, password } }))
          : await ok(
              api.POST('/api/auth/signup', { body: { email, password, ...(name.trim() && { name: name.trim() }) } }),
            );
      session.signIn(answer.token, answer.user);
      onDone?.();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
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
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {mode === 'login' ? 'Log in' : 'Create account'}
      </button>
    </form>
  );
}
