import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { linkClick } from '../router';
import { session } from '../session';
import { InlineError, useInlineError } from '../ui/inline-error';
import { t } from '../i18n/index.js';

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
      <h1>{t('auth:verify.title')}</h1>
      {done && <p role="status">{t('auth:verify.done', { email: done })}</p>}
      <InlineError message={error} />
      {!done && !error && <p>{t('auth:verify.confirming')}</p>}
      <p>
        <a href="/" onClick={linkClick}>
          {t('auth:verify.goToRooms')}
        </a>
      </p>
    </main>
  );
}
