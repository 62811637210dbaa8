import { useEffect, useState } from 'preact/hooks';
import { api, logOut, ok } from '../api/client';
import type { MyInvitation, RoomSummary } from '../api/types';
import { linkClick, navigate } from '../router';
import { session } from '../session';
import { useStore } from '../store';
import { InlineError, useInlineError } from '../ui/inline-error';
import { inputLimits, paramInputLimits } from '../ui/limits';
import { SignIn } from './sign-in';
import { ConfirmAddress, refreshUser } from './confirm-address';
import { TextField } from '../ui/fields';
import { LanguagePicker } from '../ui/language-picker';
import { t } from '../i18n/index.js';
import { roleName } from './confirm-address';

/** Signed out: log in or sign up. Signed in: your rooms, your invitations, a new room. */
export function HomePage() {
  const { user, expired } = useStore(session);
  if (!user) {
    return (
      <main class="page narrow">
        <h1>{t('auth:home.title')}</h1>
        <p>{t('auth:home.tagline')}</p>
        {expired && (
          <p role="alert" class="error">
            {t('auth:home.expired')}
          </p>
        )}
        <SignIn />
        <footer>
          <LanguagePicker />
        </footer>
      </main>
    );
  }
  return <Rooms />;
}

function Rooms() {
  const { user } = useStore(session);
  const [rooms, setRooms] = useState<RoomSummary[] | null>(null);
  const [invitations, setInvitations] = useState<MyInvitation[]>([]);
  const { error, attempt } = useInlineError();
  const load = async () => {
    // The address may have been confirmed elsewhere since this session began.
    await refreshUser();
    setRooms((await ok(api.GET('/api/rooms'))).rooms);
    setInvitations((await ok(api.GET('/api/users/pending-invitations'))).invitations);
  };
  useEffect(() => void attempt(load), []);

  const accept = (roomId: string) =>
    attempt(async () => {
      await ok(api.POST('/api/rooms/{roomId}/accept-invitation', { params: { path: { roomId } } }));
      await load();
    });

  return (
    <main class="page">
      <header class="topbar">
        <h1>{t('auth:home.yourRooms')}</h1>
        <span>
          <a href="/account" onClick={linkClick} title={t('auth:home.accountLink')}>
            {user!.email}
          </a>{' '}
          {user!.admin && (
            <>
              <a href="/admin" onClick={linkClick}>
                {t('auth:home.admin')}
              </a>{' '}
            </>
          )}
          <button type="button" onClick={() => void logOut()}>
            {t('auth:home.logOut')}
          </button>
        </span>
      </header>
      {!user!.emailVerified && <ConfirmAddress email={user!.email} />}
      <InlineError message={error} />
      {invitations.length > 0 && (
        <section aria-labelledby="invitations">
          <h2 id="invitations">{t('auth:home.invitations')}</h2>
          <ul class="list">
            {invitations.map((i) => (
              <li key={i.roomId}>
                <span>{t('auth:home.invitation', { room: i.roomName ?? i.roomId, role: roleName(i.role) })}</span>
                {user!.emailVerified ? (
                  <button type="button" onClick={() => accept(i.roomId)}>
                    {t('auth:home.accept')}
                  </button>
                ) : (
                  <span class="muted">{t('auth:home.waitsForAddress')}</span>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="rooms">
        <h2 id="rooms">{t('auth:home.rooms')}</h2>
        {rooms === null ? (
          <p>{t('common:loading')}</p>
        ) : rooms.length === 0 ? (
          <p>{t('auth:home.noRooms')}</p>
        ) : (
          <ul class="list" data-testid="rooms">
            {rooms.map((r) => (
              <li key={r.roomId}>
                <a href={`/r/${r.roomId}`} onClick={linkClick}>
                  {r.name ?? r.roomId}
                </a>
                <span class="muted">
                  {r.isPublic ? t('auth:home.publicRole', { role: roleName(r.role) }) : roleName(r.role)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <CreateRoom />
      <footer>
        <LanguagePicker />
      </footer>
    </main>
  );
}

const NAME = inputLimits('POST /api/rooms/{roomId}', 'name');

function randomRoomId() {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => alphabet[b % alphabet.length]).join('');
}

function CreateRoom() {
  const [name, setName] = useState('');
  const [roomId, setRoomId] = useState(randomRoomId);
  const { error, attempt } = useInlineError();
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await attempt(async () => {
      const answer = await ok(
        api.POST('/api/rooms/{roomId}', { params: { path: { roomId } }, body: { name: name.trim() || undefined } }),
      );
      if (!answer.isNewRoom) throw new Error(t('auth:home.newRoom.exists', { roomId }));
      return roomId;
    });
    if (created) navigate(`/r/${created}`);
  };
  return (
    <section aria-labelledby="new-room">
      <h2 id="new-room">{t('auth:home.newRoom.title')}</h2>
      <form onSubmit={submit} class="form">
        <TextField label={t('auth:home.newRoom.name')} value={name} onInput={setName} {...NAME} required />
        <TextField
          label={t('auth:home.newRoom.roomId')}
          value={roomId}
          onInput={setRoomId}
          {...paramInputLimits('roomId')}
          required
        />
        <InlineError message={error} />
        <button type="submit">{t('auth:home.newRoom.submit')}</button>
      </form>
    </section>
  );
}
