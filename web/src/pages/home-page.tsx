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

/** Signed out: log in or sign up. Signed in: your rooms, your invitations, a new room. */
export function HomePage() {
  const { user, expired } = useStore(session);
  if (!user) {
    return (
      <main class="page narrow">
        <h1>Maproom</h1>
        <p>Shared maps for teams: markers, layers, rasters, drawings, comments and slides, live.</p>
        {expired && (
          <p role="alert" class="error">
            Your session has ended. Please log in again.
          </p>
        )}
        <SignIn />
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
        <h1>Your rooms</h1>
        <span>
          <a href="/account" onClick={linkClick} title="Your account: password, address, deletion">
            {user!.email}
          </a>{' '}
          {user!.admin && (
            <>
              <a href="/admin" onClick={linkClick}>
                Admin
              </a>{' '}
            </>
          )}
          <button type="button" onClick={() => void logOut()}>
            Log out
          </button>
        </span>
      </header>
      {!user!.emailVerified && <ConfirmAddress email={user!.email} />}
      <InlineError message={error} />
      {invitations.length > 0 && (
        <section aria-labelledby="invitations">
          <h2 id="invitations">Invitations</h2>
          <ul class="list">
            {invitations.map((i) => (
              <li key={i.roomId}>
                <span>
                  {i.roomName ?? i.roomId} as {i.role}
                </span>
                {user!.emailVerified ? (
                  <button type="button" onClick={() => accept(i.roomId)}>
                    Accept
                  </button>
                ) : (
                  <span class="muted">Opens once your address is confirmed</span>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="rooms">
        <h2 id="rooms">Rooms</h2>
        {rooms === null ? (
          <p>Loading…</p>
        ) : rooms.length === 0 ? (
          <p>No rooms yet: create one below.</p>
        ) : (
          <ul class="list" data-testid="rooms">
            {rooms.map((r) => (
              <li key={r.roomId}>
                <a href={`/r/${r.roomId}`} onClick={linkClick}>
                  {r.name ?? r.roomId}
                </a>
                <span class="muted">
                  {r.role}
                  {r.isPublic ? ', public' : ''}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <CreateRoom />
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
      if (!answer.isNewRoom) throw new Error(`The room ${roomId} already exists: choose another id.`);
      return roomId;
    });
    if (created) navigate(`/r/${created}`);
  };
  return (
    <section aria-labelledby="new-room">
      <h2 id="new-room">New room</h2>
      <form onSubmit={submit} class="form">
        <TextField label="Name" value={name} onInput={setName} {...NAME} required />
        <TextField
          label="Room id (10 characters: letters, digits, _ or -)"
          value={roomId}
          onInput={setRoomId}
          {...paramInputLimits('roomId')}
          required
        />
        <InlineError message={error} />
        <button type="submit">Create room</button>
      </form>
    </section>
  );
}
