import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, ok } from '../api/client';
import { linkClick } from '../router';
import { session } from '../session';

/** The page an address-confirmation e-mail links to: posts its token. */
export function VerifyEmailPage() {
  const [state, setState] = useState<{ done?: boolean; error?: string }>({});
  useEffect(() => {
    const token = new URLSearchParams(location.search).get('token') ?? '';
    ok(api.POST('/api/auth/verify-email', { body: { token } }))
      .then(({ user }) => {
        const current = session.get();
        if (current.token && current.user?.id === user.id) session.signIn(current.token, user);
        setState({ done: true });
      })
      .catch((error) => setState({ error: messageOf(error) }));
  }, []);
  return (
    <main class="page narrow">
      <h1>Confirm your address</h1>
      {state.done && <p role="status">Your address is confirmed. Invitations to it are now yours.</p>}
      {state.error && (
        <p role="alert" class="error">
          {state.error}
        </p>
      )}
      {!state.done && !state.error && <p>Confirming…</p>}
      <p>
        <a href="/" onClick={linkClick}>
          Go to your rooms
        </a>
      </p>
    </main>
  );
}
