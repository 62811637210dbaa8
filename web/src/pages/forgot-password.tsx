import { useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { linkClick } from '../router';
import { InlineError, useInlineSubmit } from '../ui/inline-error';
import { EmailField } from '../ui/fields';

/** The same words whatever the address: the page tells nobody whether an account has it. */
const SENT = 'If an account exists for that address, a link is on its way. It works once, for 30 minutes.';

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
    <form class="form" onSubmit={ask} aria-label="Ask for a password reset link">
      {lead && <p>{lead}</p>}
      <EmailField label="E-mail" value={email} onInput={setEmail} />
      <InlineError message={error} />
      {sentTo && (
        <p role="status" class="note">
          {SENT}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {sentTo ? 'Send another link' : 'Send me a link'}
      </button>
    </form>
  );
}

/** /forgot-password: the login page's "Forgot password?" leads here. */
export function ForgotPasswordPage() {
  return (
    <main class="page narrow">
      <h1>Forgot your password?</h1>
      <ForgotPasswordForm lead="Give the address you sign in with: we e-mail it a link to choose a new password." />
      <BackToLogIn />
    </main>
  );
}

/** The way back from the password pages to the start page's log-in form. */
export function BackToLogIn() {
  return (
    <p>
      <a href="/" onClick={linkClick}>
        Back to log in
      </a>
    </p>
  );
}

/** The login form's way to the page above (a small part of its own: the login form has other buttons too). */
export function ForgotPasswordLink() {
  return (
    <p class="forgot-password">
      <a href="/forgot-password" onClick={linkClick}>
        Forgot password?
      </a>
    </p>
  );
}
