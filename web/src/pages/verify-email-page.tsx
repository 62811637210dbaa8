import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { linkClick } from '../router';
import { session } from '../session';
import { InlineError, useInlineError } from '../ui/inline-error';

/** The page an address-confirmation e-mail links to (a new account's, or an address change's): posts its token. */
export function VerifyEmailPage() {
  // The confirmed address: a new account's, or the new one of an address change (the same link's page).
  const [done, setDone] = useState('');
  const { error, attempt } = useInlineError();
  useEffect(() => {
    const token = new URLSearchParams(location.search).get('token') ?? '';
    void attempt(async () => {
      const { user } = await ok(api.POST('/api/auth/verify-email', { body: { token } }));
      session.withUser(user);
      setDone(user.email);
    });
  }, []);
  return (
    <main class="page narrow">
      <h1>Confirm your address</h1>
      {done && (
        <p role="status">Your address is confirmed. You sign in with {done}; invitations to it are now yours.</p>
      )}
      <InlineError message={error} />
      {!done && !error && <p>Confirming…</p>}
      <p>
        <a href="/" onClick={linkClick}>
          Go to your rooms
        </a>
      </p>
    </main>
  );
}
