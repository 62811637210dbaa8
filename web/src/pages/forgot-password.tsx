import { useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { linkClick } from '../router';
import { InlineError, useInlineSubmit } from '../ui/inline-error';
import { EmailField } from '../ui/fields';
import { t } from '../i18n/index.js';

/** Asks for a link to set a new password (POST /api/auth/password-reset), for any address. */
export function ForgotPasswordForm({ lead }: { lead?: string }) {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState('');
  const { error, busy, submit } = useInlineSubmit();
  const ask = async (event: Event) => {
    const address = email.trim();
    const sent = await submit(event, async () => {
      await ok(api.POST('/api/auth/password-reset', { body: { email: address } }));
      return true;
    });
    if (sent) setSentTo(address);
  };
  return (
    <form class="form" onSubmit={ask} aria-label={t('auth:forgot.form')}>
      {lead && <p>{lead}</p>}
      <EmailField label={t('auth:fields.email')} value={email} onInput={setEmail} />
      <InlineError message={error} />
      {sentTo && (
        // The same words whatever the address: the page tells nobody whether an account has it.
        <p role="status" class="note">
          {t('auth:forgot.sent')}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {sentTo ? t('auth:forgot.sendAnother') : t('auth:forgot.sendMe')}
      </button>
    </form>
  );
}

/** /forgot-password: the login page's "Forgot password?" leads here. */
export function ForgotPasswordPage() {
  return (
    <main class="page narrow">
      <h1>{t('auth:forgot.title')}</h1>
      <ForgotPasswordForm lead={t('auth:forgot.lead')} />
      <BackToLogIn />
    </main>
  );
}

/** The way back from the password pages to the start page's log-in form. */
export function BackToLogIn() {
  return (
    <p>
      <a href="/" onClick={linkClick}>
        {t('auth:forgot.back')}
      </a>
    </p>
  );
}

/** The login form's way to the page above (a small part of its own: the login form has other buttons too). */
export function ForgotPasswordLink() {
  return (
    <p class="forgot-password">
      <a href="/forgot-password" onClick={linkClick}>
        {t('auth:forgot.link')}
      </a>
    </p>
  );
}
