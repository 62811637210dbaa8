import { useEffect, useState } from 'preact/hooks';
import { useStore } from '../../store';
import type { Member } from '../../api/types';
import {
  changeRole,
  inviteMember,
  loadMembers,
  removeMember,
  revokeInvitation,
  transferOwnership,
} from '../actions/members';
import { useRoom } from '../room-context';
import { inputLimits } from '../../ui/limits';
import { confirmInPage } from '../../ui/confirm-dialog';

/** Members and their roles, pending invitations, and a form to invite by e-mail. */
export function MembersSection() {
  const { members: lists, model, notify, attempt } = useRoom();
  const { members, invitations } = useStore(lists) ?? { members: [], invitations: [] };
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'editor' | 'viewer'>('editor');
  useEffect(() => void attempt(() => loadMembers(lists)), [lists]);
  const makeOwner = async (member: Member) => {
    const question =
      `Make ${member.email} the owner of this room? You become an editor: you keep editing, but its settings, ` +
      'members, tokens and deletion become theirs.';
    if (await confirmInPage(question, 'Make owner'))
      await attempt(() => transferOwnership(lists, model, member.userId), `${member.email} now owns the room`);
  };
  const invite = async (event: Event) => {
    event.preventDefault();
    const said = await attempt(() => inviteMember(lists, { email: email.trim(), role }));
    if (said === undefined) return;
    setEmail('');
    notify(said);
  };
  return (
    <section aria-labelledby="members">
      <h3 id="members">Members</h3>
      <ul class="list" data-testid="members">
        {members.map((m) => (
          <li key={m.userId}>
            <span>
              {m.email}{' '}
              {m.role === 'owner' ? (
                <span class="muted">owner</span>
              ) : (
                <select
                  class="role"
                  aria-label={`Role of ${m.email}`}
                  value={m.role}
                  onChange={(e) => {
                    const next = e.currentTarget.value as 'editor' | 'viewer';
                    void attempt(
                      () => changeRole(lists, m.userId, next),
                      `${m.email} is now ${next === 'editor' ? 'an editor' : 'a viewer'}`,
                    );
                  }}
                >
                  <option value="editor">editor</option>
                  <option value="viewer">viewer</option>
                </select>
              )}
            </span>
            {m.role !== 'owner' && (
              <span class="member-actions">
                <button type="button" class="link" onClick={() => makeOwner(m)}>
                  Make owner
                </button>
                <button
                  type="button"
                  class="link"
                  onClick={async () =>
                    (await confirmInPage(`Remove ${m.email} from the room?`, 'Remove')) &&
                    attempt(() => removeMember(lists, m.userId))
                  }
                >
                  Remove
                </button>
              </span>
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
                onClick={() => attempt(() => revokeInvitation(lists, i.email), 'Invitation revoked')}
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
          {...inputLimits('POST /api/rooms/{roomId}/invite', 'email')}
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
