import { useEffect } from 'preact/hooks';
import { api, ok } from '../api/client';
import type { SignInOptions } from '../api/types';
import { Store, useStore } from '../store';
import { AuthForm } from './auth-form';
import { t } from '../i18n/index.js';

/** The sign-in options of this Maproom, read once per page load (null until then). */
const options = new Store<SignInOptions | null>(null);
let asked = false;

export function useSignInOptions(): SignInOptions | null {
  const value = useStore(options);
  useEffect(() => {
    if (asked) return;
    asked = true;
    ok(api.GET('/api/auth/providers')).then(
      (answer) => options.set(answer),
      // Unreadable: offer what every Maproom had before providers, the e-mail and password form.
      () => options.set({ localAccounts: true, signup: 'open', providers: [] }),
    );
  }, []);
  return value;
}

/** The name of the window a lapsed page opens to sign in with a provider (signed-in-page.tsx closes it). */
export const SIGN_IN_WINDOW = 'maproom-sign-in';

/** The service's route that sends the browser to a provider, coming back to `returnTo`. */
export const providerStart = (providerId: string, returnTo: string) =>
  `/api/auth/oidc/${encodeURIComponent(providerId)}/start?returnTo=${encodeURIComponent(returnTo)}`;

/** Where the browser should come back to after signing in with a provider: this page. */
const here = () => (location.pathname === '/signed-in' ? '/' : location.pathname + location.search);

/**
 * The way in: a button per identity provider (a plain link to the service's start route, which
 * sends the browser to the provider), and the e-mail and password form unless the instance
 * turned local accounts off.
 */
export function SignIn({ onDone, returnTo }: { onDone?: () => void; returnTo?: string }) {
  const choices = useSignInOptions();
  if (!choices) return <p class="muted">{t('auth:signIn.loading')}</p>;
  const back = returnTo ?? here();
  return (
    <div class="sign-in">
      {choices.providers.length > 0 && (
        <ul class="providers" aria-label={t('auth:signIn.withOrganisation')}>
          {choices.providers.map((provider) => (
            <li key={provider.id}>
              <a class="provider-button" href={providerStart(provider.id, back)}>
                {provider.name}
              </a>
            </li>
          ))}
        </ul>
      )}
      {choices.providers.length > 0 && choices.localAccounts && <p class="or muted">{t('auth:signIn.orEmail')}</p>}
      {choices.localAccounts && <AuthForm onDone={onDone} />}
      {!choices.localAccounts && choices.providers.length === 0 && (
        <p role="alert" class="error">
          {t('auth:signIn.noWay')}
        </p>
      )}
    </div>
  );
}
