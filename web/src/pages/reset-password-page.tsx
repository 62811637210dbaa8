import { useEffect, useState } from 'preact/hooks';
import { api, ok, onRefusal } from '../api/client';
import { navigate } from '../router';
import { session } from '../session';
import { InlineError, useInlineSubmit } from '../ui/inline-error';
import { AuthForm } from './auth-form';
import { BackToLogIn, ForgotPasswordForm } from './forgot-password';
import { PasswordField } from './password-field';
import { t } from '../i18n/index.js';

type Step = 'choose' | 'done' | 'invalid';

const HEADINGS: Record<Step, () => string> = {
  choose: () => t('auth:reset.choose'),
  done: () => t('auth:reset.changed'),
  invalid: () => t('auth:reset.invalid'),
};

/**
 * /reset-password?token=: the page a password-reset e-mail links to. A new password, then
 * signed out everywhere (the service ended every session of the account) with a form to sign in;
 * a used or expired link says so and asks for a new one in place.
 */
export function ResetPasswordPage() {
  const [token] = useState(() => new URLSearchParams(location.search).get('token') ?? '');
  const [step, setStep] = useState<Step>(token ? 'choose' : 'invalid');
  // Read once, then off the address bar and the history: the link's secret is a password.
  useEffect(() => {
    if (new URLSearchParams(location.search).has('token')) history.replaceState(null, '', '/reset-password');
  }, []);
  return (
    <main class="page narrow">
      <h1>{HEADINGS[step]()}</h1>
      {step === 'choose' && <NewPasswordForm token={token} onDone={setStep} />}
      {step === 'done' && (
        <>
          <p role="status" class="note">
            {t('auth:reset.doneNote')}
          </p>
          <AuthForm onDone={() => navigate('/')} />
        </>
      )}
      {step === 'invalid' && (
        <>
          <p role="alert" class="error">
            {t('auth:reset.invalidNote')}
          </p>
          <ForgotPasswordForm lead={t('auth:reset.askNew')} />
        </>
      )}
      {step !== 'done' && <BackToLogIn />}
    </main>
  );
}

function NewPasswordForm({ token, onDone }: { token: string; onDone: (step: Step) => void }) {
  const [password, setPassword] = useState('');
  const { error, busy, submit } = useInlineSubmit();
  const choose = async (event: Event) => {
    const outcome = await submit(event, () =>
      ok(api.POST('/api/auth/password-reset/confirm', { body: { token, password } })).then(
        () => 'done' as const,
        onRefusal('invalid_token', () => 'invalid' as const),
      ),
    );
    if (!outcome) return;
    // This browser's session of the account ended with the others.
    if (outcome === 'done') session.signOut();
    onDone(outcome);
  };
  return (
    <form class="form" onSubmit={choose} aria-label={t('auth:reset.choose')}>
      <PasswordField label={t('auth:reset.newPassword')} value={password} onInput={setPassword} fresh />
      <InlineError message={error} />
      <button type="submit" disabled={busy}>
        {t('auth:reset.submit')}
      </button>
    </form>
  );
}
