import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import type { Invitation, Member } from '../../api/types';
import { useRoom } from '../room-context';

/** Members and their roles, pending invitations, and a form to invite by e-mail. */
export function MembersSection() {
  const { roomId, notify, attempt } = useRoom();
  const [members, setMembers] = useState<Member[]>([]);
  const [invitations, setInvitations] = useState<Invitation[]>([]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'editor' | 'viewer'>('editor');
  const p = { params: { path: { roomId } } };
  const load = async () => {
    setMembers(await ok(api.GET('/api/rooms/{roomId}/members', p)));
    setInvitations((await ok(api.GET('/api/rooms/{roomId}/pending-invitations', p))).invitations);
  };
  useEffect(() => void attempt(load), []);
  /** Members are not room content (no live changes): the list is read again after each change. */
  const act = (work: () => Promise<unknown>, done?: string) =>
    attempt(async () => {
      await work();
      await load();
    }, done);
  const invite = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      const answer = await ok(api.POST('/api/rooms/{roomId}/invite', { ...p, body: { email: email.trim(), role } }));
      setEmail('');
      notify(
        answer.status === 'added'
          ? `${answer.member?.email} is now a member`
          : `Invitation sent to ${answer.invitation?.email}`,
      );
    });
  };
  return (
    <section aria-labelledby="members">
      <h3 id="members">Members</h3>
      <ul class="list" data-testid="members">
        {members.map((m) => (
          <li key={m.userId}>
            <span>
              {m.email} <span class="muted">{m.role}</span>
            </span>
            {m.role !== 'owner' && (
              <button
                type="button"
                class="link"
                onClick={() =>
                  confirm(`Remove ${m.email}?`) &&
                  act(() =>
                    ok(
                      api.DELETE('/api/rooms/{roomId}/members/{userId}', {
                        params: { path: { roomId, userId: m.userId } },
                      }),
                    ),
                  )
                }
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      <h4>Pending invitations</h4>
      {invitations.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ul class="list" data-testid="invitations">
          {invitations.map((i) => (
            <li key={i.email}>
              <span>
                {i.email} <span class="muted">{i.role}</span>
              </span>
              <button
                type="button"
                class="link"
                onClick={() =>
                  act(
                    () =>
                      ok(
                        api.DELETE('/api/rooms/{roomId}/pending-invitations/{email}', {
                          params: { path: { roomId, email: i.email } },
                        }),
                      ),
                    'Invitation revoked',
                  )
                }
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="inline" onSubmit={invite} aria-label="Invite">
        <input
          type="email"
          aria-label="E-mail to invite"
          placeholder="colleague@example.com"
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
          required
        />
        <select aria-label="Role" value={role} onChange={(e) => setRole(e.currentTarget.value as 'editor' | 'viewer')}>
          <option value="editor">Editor</option>
          <option value="viewer">Viewer</option>
        </select>
        <button type="submit">Invite</button>
      </form>
    </section>
  );
}
