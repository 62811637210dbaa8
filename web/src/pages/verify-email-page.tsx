import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { linkClick } from '../router';
import { session } from '../session';
import { InlineError, useInlineError } from '../ui/inline-error';

/** The page an address-confirmation e-mail links to: posts its token. */
export function VerifyEmailPage() {
  const [done, setDone] = useState(false);
  const { error, attempt } = useInlineError();
  useEffect(() => {
    const token = new URLSearchParams(location.search).get('token') ?? '';
    void attempt(async () => {
      const { user } = await ok(api.POST('/api/auth/verify-email', { body: { token } }));
      const current = session.get();
      if (current.token && current.user?.id === user.id) session.signIn(current.token, user);
      setDone(true);
    });
  }, []);
  return (
    <main class="page narrow">
      <h1>Confirm your address</h1>
      {done && <p role="status">Your address is confirmed. Invitations to it are now yours.</p>}
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
