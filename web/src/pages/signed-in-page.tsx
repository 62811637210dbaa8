import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, messageOf, ok } from '../api/client';
import { route } from '../router';
import { session } from '../session';
import { SIGN_IN_WINDOW, SignIn } from './sign-in';

/** What each refusal of a sign-in with a provider means, in words (the service's codes). */
const REFUSALS: Record<string, string> = {
  sign_in_expired: 'This sign-in was already used or has expired. Please sign in again.',
  sign_in_mismatch:
    'No sign-in was finished in this browser: it was started in another browser or window, or its cookie was ' +
    'blocked. Please sign in again from here.',
  provider_refused: 'The identity provider did not let you in (the sign-in may have been cancelled).',
  sign_in_failed: "The identity provider's answer could not be checked. Please try again.",
  provider_unavailable: 'The identity provider cannot be reached just now. Please try again in a moment.',
  email_unverified:
    'This e-mail address belongs to an existing account, and the identity provider does not vouch for it ' +
    '(it does not mark the address as verified). Sign in to that account with its password instead.',
  signup_closed:
    'This Maproom does not let this address create an account: sign-up is closed, by invitation, or ' +
    'limited to some e-mail domains. Ask its administrator.',
  account_disabled: 'This account is disabled; ask the administrator of this Maproom to enable it.',
};
const UNKNOWN = 'Signing in did not work. Please try again.';

/** Goes to a path of this site without leaving this page in the history (the fragment held a session). */
function replaceWith(path: string) {
  history.replaceState(null, '', path);
  route.set(path);
}

/**
 * Where the service sends the browser back from an identity provider: `#returnTo=...` asks the
 * service for the session this browser's sign-in finished (`POST /api/auth/oidc/session`, which
 * answers only with the httpOnly cookie the callback gave this browser, so a link to this page
 * signs nobody in) and goes on to `returnTo`; `#error=<code>&returnTo=...` says why not and
 * offers the ways in again. The fragment is removed from the address at once.
 */
export function SignedInPage() {
  const [answer] = useState(() => new URLSearchParams(location.hash.slice(1)));
  const code = answer.get('error');
  const raw = answer.get('returnTo') ?? '/';
  // The service only sends paths of this site; checked again here, since anyone can type a fragment.
  const returnTo = /^\/(?![/\\])/.test(raw) ? raw : '/';
  const [failure, setFailure] = useState(code ? (REFUSALS[code] ?? UNKNOWN) : '');
  useEffect(() => {
    history.replaceState(null, '', '/signed-in');
    if (code) return;
    ok(api.POST('/api/auth/oidc/session')).then(
      ({ token, user }) => {
        session.signIn(token, user);
        // A window a lapsed page opened to sign in again: the page has the session now.
        if (window.name === SIGN_IN_WINDOW) window.close();
        replaceWith(returnTo);
      },
      (error) => setFailure(error instanceof ApiError ? (REFUSALS[error.code] ?? messageOf(error)) : messageOf(error)),
    );
  }, []);
  return (
    <main class="page narrow">
      <h1>Sign in</h1>
      {!failure && <p role="status">Signing you in…</p>}
      {failure && (
        <>
          <p role="alert" class="error">
            {failure}
          </p>
          <SignIn returnTo={returnTo} onDone={() => replaceWith(returnTo)} />
        </>
      )}
    </main>
  );
}
