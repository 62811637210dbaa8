import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, messageOf, ok } from '../api/client';
import { route } from '../router';
import { session } from '../session';
import { SIGN_IN_WINDOW, SignIn } from './sign-in';
import { t } from '../i18n/index.js';

/** What a refusal of a sign-in with a provider means, in words (the service's codes); undefined for another code. */
function refusal(code: string): string | undefined {
  switch (code) {
    case 'sign_in_expired':
      return t('auth:signedIn.refusal.signInExpired');
    case 'sign_in_mismatch':
      return t('auth:signedIn.refusal.signInMismatch');
    case 'provider_refused':
      return t('auth:signedIn.refusal.providerRefused');
    case 'sign_in_failed':
      return t('auth:signedIn.refusal.signInFailed');
    case 'provider_unavailable':
      return t('auth:signedIn.refusal.providerUnavailable');
    case 'email_unverified':
      return t('auth:signedIn.refusal.emailUnverified');
    case 'signup_closed':
      return t('auth:signedIn.refusal.signupClosed');
    case 'account_disabled':
      return t('auth:signedIn.refusal.accountDisabled');
    default:
      return undefined;
  }
}

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
  const [failure, setFailure] = useState(code ? (refusal(code) ?? t('auth:signedIn.unknown')) : '');
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
      (error) => setFailure(error instanceof ApiError ? (refusal(error.code) ?? messageOf(error)) : messageOf(error)),
    );
  }, []);
  return (
    <main class="page narrow">
      <h1>{t('auth:signedIn.title')}</h1>
      {!failure && <p role="status">{t('auth:signedIn.signingIn')}</p>}
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
