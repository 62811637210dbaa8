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

/** /account: the signed-in person's password, address, and the deletion of the account. */
export function AccountPage() {
  const { user } = useStore(session);
  const [deleted, setDeleted] = useState('');
  if (deleted)
    return (
      <main class="page narrow">
        <h1>Account deleted</h1>
        <p role="status" class="note">
          The account of {deleted} is deleted and you are signed out on every device. What you wrote in rooms keeps your
          name, marked as a deleted account.
        </p>
        <p>
          <a href="/" onClick={linkClick}>
            Go to the start page
          </a>
        </p>
      </main>
    );
  if (!user)
    return (
      <main class="page narrow">
        <h1>Your account</h1>
        <p>Log in to change your password or address, or to delete your account.</p>
        <AuthForm />
      </main>
    );
  return (
    <main class="page narrow account">
      <header class="topbar">
        <h1>Your account</h1>
        <a href="/" onClick={linkClick}>
          Your rooms
        </a>
      </header>
      <p>
        Signed in as <strong>{user.email}</strong>
        {user.name ? ` (${user.name})` : ''}.
      </p>
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
      <h2 id="change-password">Change your password</h2>
      <form class="form" onSubmit={submit} aria-label="Change your password">
        <PasswordField label="Current password" value={current} onInput={setCurrent} />
        <PasswordField label="New password" value={next} onInput={setNext} fresh />
        <InlineError message={error} />
        {done && (
          <p role="status" class="note">
            Your password is changed. Your other sessions have ended; this one goes on.
          </p>
        )}
        <button type="submit">Change password</button>
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
      <h2 id="change-email">Change your e-mail address</h2>
      <form class="form" onSubmit={submit} aria-label="Change your e-mail address">
        <EmailField label="New e-mail address" value={email} onInput={setEmail} />
        <PasswordField label="Password" value={password} onInput={setPassword} />
        <InlineError message={error} />
        {sentTo && (
          <p role="status" class="note">
            Check {sentTo} for a link: your address changes when you follow it. Until then you sign in with {user.email}
            .
          </p>
        )}
        <button type="submit">Change e-mail address</button>
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
    if (!(await confirmInPage(`Delete the account of ${user.email} for good?`, 'Delete my account'))) return;
    const outcome = await attempt(() => deleteAccount(password));
    if (!outcome) return;
    if (outcome.deleted) return onDeleted();
    setOwned(outcome.rooms);
    setRefused(`Your account is not deleted: you still own ${outcome.rooms.length === 1 ? 'a room' : 'rooms'}.`);
  };
  return (
    <section aria-labelledby="delete-account" class="danger-zone">
      <h2 id="delete-account">Delete your account</h2>
      {owned && owned.length > 0 && <OwnedRooms rooms={owned} />}
      <form class="form" onSubmit={submit} aria-label="Delete your account">
        <p>
          Your sign-in ends on every device. What you wrote in rooms stays, under your name marked as a deleted account.
        </p>
        <PasswordField label="Password to confirm" value={password} onInput={setPassword} optional />
        <p class="muted">Signed in through your organisation? Leave it empty: a recent sign-in confirms it.</p>
        <InlineError message={error || refused} />
        {/* Not disabled while rooms are listed: the service decides, and a room handed over meanwhile counts. */}
        <button type="submit" class="danger">
          Delete my account
        </button>
      </form>
    </section>
  );
}

/** The rooms that keep the account from being deleted, each with the way to its settings. */
function OwnedRooms({ rooms }: { rooms: Owned }) {
  return (
    <div class="note" data-testid="owned-rooms">
      <p>
        You own {rooms.length === 1 ? 'this room. Hand it' : `these ${rooms.length} rooms. Hand each`} to another member
        (Make owner, in its members) or delete it; then your account can be deleted.
      </p>
      <ul class="list">
        {rooms.map((r) => (
          <li key={r.roomId}>
            <span>{r.name ?? r.roomId}</span>
            <a href={`/r/${r.roomId}?tab=settings`} onClick={linkClick}>
              Hand over or delete
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
