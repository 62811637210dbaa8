import { useEffect, useState } from 'preact/hooks';
import { changeEmail, changePassword, deleteAccount, ownedRooms } from '../api/account';
import type { User } from '../api/types';
import { linkClick } from '../router';
import { session } from '../session';
import { useStore } from '../store';
import { confirmInPage } from '../ui/confirm-dialog';
import { InlineError, useInlineError } from '../ui/inline-error';
import { AuthForm } from './auth-form';
import { PasswordField } from './password-field';
import { EmailField } from '../ui/fields';
import { LanguagePicker } from '../ui/language-picker';
import { t } from '../i18n/index.js';

/** /account: the signed-in person's password, address, and the deletion of the account. */
export function AccountPage() {
  const { user } = useStore(session);
  const [deleted, setDeleted] = useState('');
  if (deleted)
    return (
      <main class="page narrow">
        <h1>{t('auth:account.deletedTitle')}</h1>
        <p role="status" class="note">
          {t('auth:account.deletedNote', { email: deleted })}
        </p>
        <p>
          <a href="/" onClick={linkClick}>
            {t('auth:account.goToStart')}
          </a>
        </p>
      </main>
    );
  if (!user)
    return (
      <main class="page narrow">
        <h1>{t('auth:account.title')}</h1>
        <p>{t('auth:account.logInLead')}</p>
        <AuthForm />
        <LanguagePicker />
      </main>
    );
  return (
    <main class="page narrow account">
      <header class="topbar">
        <h1>{t('auth:account.title')}</h1>
        <a href="/" onClick={linkClick}>
          {t('auth:account.yourRooms')}
        </a>
      </header>
      <p>
        {t('auth:account.signedInAs')} <strong>{user.email}</strong>
        {user.name ? <> {t('auth:account.signedInName', { name: user.name })}</> : t('auth:account.signedInEnd')}
      </p>
      <LanguagePicker />
      <ChangePassword />
      <ChangeEmail user={user} />
      <DeleteAccount user={user} onDeleted={() => setDeleted(user.email)} />
    </main>
  );
}

function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const { error, attempt } = useInlineError();
  const submit = async (event: Event) => {
    event.preventDefault();
    setDone(false);
    if ((await attempt(() => changePassword(current, next).then(() => true))) !== true) return;
    setCurrent('');
    setNext('');
    setDone(true);
  };
  return (
    <section aria-labelledby="change-password">
      <h2 id="change-password">{t('auth:account.password.title')}</h2>
      <form class="form" onSubmit={submit} aria-label={t('auth:account.password.title')}>
        <PasswordField label={t('auth:account.password.current')} value={current} onInput={setCurrent} />
        <PasswordField label={t('auth:account.password.new')} value={next} onInput={setNext} fresh />
        <InlineError message={error} />
        {done && (
          <p role="status" class="note">
            {t('auth:account.password.done')}
          </p>
        )}
        <button type="submit">{t('auth:account.password.submit')}</button>
      </form>
    </section>
  );
}

function ChangeEmail({ user }: { user: User }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [sentTo, setSentTo] = useState('');
  const { error, attempt } = useInlineError();
  const submit = async (event: Event) => {
    event.preventDefault();
    setSentTo('');
    const address = email.trim();
    if ((await attempt(() => changeEmail(address, password).then(() => true))) !== true) return;
    setPassword('');
    setSentTo(address);
  };
  return (
    <section aria-labelledby="change-email">
      <h2 id="change-email">{t('auth:account.email.title')}</h2>
      <form class="form" onSubmit={submit} aria-label={t('auth:account.email.title')}>
        <EmailField label={t('auth:account.email.new')} value={email} onInput={setEmail} />
        <PasswordField label={t('auth:fields.password')} value={password} onInput={setPassword} />
        <InlineError message={error} />
        {sentTo && (
          <p role="status" class="note">
            {t('auth:account.email.sent', { address: sentTo, email: user.email })}
          </p>
        )}
        <button type="submit">{t('auth:account.email.submit')}</button>
      </form>
    </section>
  );
}

type Owned = { roomId: string; name: string | null }[];

function DeleteAccount({ user, onDeleted }: { user: User; onDeleted: () => void }) {
  const [password, setPassword] = useState('');
  const [owned, setOwned] = useState<Owned | null>(null);
  const [refused, setRefused] = useState('');
  const { error, attempt } = useInlineError();
  useEffect(() => void attempt(async () => setOwned(await ownedRooms())), []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setRefused('');
    const confirmed = await confirmInPage(
      t('auth:account.delete.confirm', { email: user.email }),
      t('auth:account.delete.submit'),
    );
    if (!confirmed) return;
    const outcome = await attempt(() => deleteAccount(password));
    if (!outcome) return;
    if (outcome.deleted) return onDeleted();
    setOwned(outcome.rooms);
    setRefused(t('auth:account.delete.refused', { count: outcome.rooms.length }));
  };
  return (
    <section aria-labelledby="delete-account" class="danger-zone">
      <h2 id="delete-account">{t('auth:account.delete.title')}</h2>
      {owned && owned.length > 0 && <OwnedRooms rooms={owned} />}
      <form class="form" onSubmit={submit} aria-label={t('auth:account.delete.title')}>
        <p>{t('auth:account.delete.lead')}</p>
        <PasswordField label={t('auth:account.delete.password')} value={password} onInput={setPassword} optional />
        <p class="muted">{t('auth:account.delete.organisation')}</p>
        <InlineError message={error || refused} />
        {/* Not disabled while rooms are listed: the service decides, and a room handed over meanwhile counts. */}
        <button type="submit" class="danger">
          {t('auth:account.delete.submit')}
        </button>
      </form>
    </section>
  );
}

/** The rooms that keep the account from being deleted, each with the way to its settings. */
function OwnedRooms({ rooms }: { rooms: Owned }) {
  return (
    <div class="note" data-testid="owned-rooms">
      <p>{t('auth:account.owned.lead', { count: rooms.length })}</p>
      <ul class="list">
        {rooms.map((r) => (
          <li key={r.roomId}>
            <span>{r.name ?? r.roomId}</span>
            <a href={`/r/${r.roomId}?tab=settings`} onClick={linkClick}>
              {t('auth:account.owned.handOver')}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
