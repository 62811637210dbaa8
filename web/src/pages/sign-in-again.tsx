import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { session } from '../session';
import { useStore } from '../store';
import { InlineError, useInlineSubmit } from '../ui/inline-error';
import { TextField } from '../ui/fields';
import { providerStart, SIGN_IN_WINDOW, useSignInOptions } from './sign-in';
import { t } from '../i18n/index.js';

/**
 * The session lapsed while the page was in use (it expired, or was revoked): a modal dialog over
 * the page as it is (a room stays open) asks the same person to sign in again. What the page was
 * sending waits (api/client.ts) and goes once they have; signing out instead gives it up.
 */
export function SignInAgain() {
  const { lapsed, user } = useStore(session);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const shown = dialog.current;
    if (lapsed && shown && !shown.open) shown.showModal();
  }, [lapsed]);
  if (!lapsed || !user) return null;
  return (
    <dialog
      ref={dialog}
      class="confirm-dialog sign-in-again"
      aria-labelledby="sign-in-again"
      // Escape does not close it: the person chooses to sign in, or to sign out.
      onCancel={(e) => e.preventDefault()}
    >
      <h2 id="sign-in-again">{t('auth:again.title')}</h2>
      <p>{t('auth:again.lead')}</p>
      <SignInAgainChoices email={user.email} />
    </dialog>
  );
}

/**
 * The ways back in: the instance's identity providers, each in a window of its own (this page
 * must stay as it is, holding the change; the window's sign-in reaches it through the stored
 * session, session.ts), and the password unless local accounts are off.
 */
function SignInAgainChoices({ email }: { email: string }) {
  const choices = useSignInOptions();
  if (!choices) return null;
  const openProvider = (providerId: string) =>
    window.open(
      providerStart(providerId, location.pathname + location.search),
      SIGN_IN_WINDOW,
      'popup,width=520,height=680',
    );
  return (
    <>
      {choices.providers.length > 0 && (
        <ul class="providers" aria-label={t('auth:again.withOrganisation')}>
          {choices.providers.map((provider) => (
            <li key={provider.id}>
              <button type="button" class="provider-button" onClick={() => openProvider(provider.id)}>
                {provider.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      {choices.localAccounts ? (
        <SignInAgainForm email={email} />
      ) : (
        <div class="row">
          <button type="button" class="link" onClick={() => session.signOut(true)}>
            {t('auth:again.signOutInstead')}
          </button>
        </div>
      )}
    </>
  );
}

function SignInAgainForm({ email }: { email: string }) {
  const [password, setPassword] = useState('');
  const { error, busy, submit } = useInlineSubmit();
  const signIn = async (event: Event) => {
    const answer = await submit(event, () => ok(api.POST('/api/auth/login', { body: { email, password } })));
    if (answer) session.signIn(answer.token, answer.user);
  };
  return (
    <form class="form" onSubmit={signIn} aria-label={t('auth:again.form')}>
      <TextField label={t('auth:fields.email')} type="email" value={email} readOnly autoComplete="username" />
      <TextField
        label={t('auth:fields.password')}
        type="password"
        value={password}
        onInput={setPassword}
        autoComplete="current-password"
        required
        // The dialog opened for this one field.
        autoFocus
      />
      <InlineError message={error} />
      <div class="row">
        <button type="button" class="link" onClick={() => session.signOut(true)}>
          {t('auth:again.signOutInstead')}
        </button>
        <button type="submit" disabled={busy}>
          {t('auth:again.submit')}
        </button>
      </div>
    </form>
  );
}
