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
import { t } from '../../i18n/index.js';

/** A role as a list shows it (lowercase in English). */
function roleWord(role: string): string {
  switch (role) {
    case 'owner':
      return t('settings:members.roles.owner');
    case 'editor':
      return t('settings:members.roles.editor');
    case 'viewer':
      return t('settings:members.roles.viewer');
    default:
      return role;
  }
}

/** Members and their roles, pending invitations, and a form to invite by e-mail. */
export function MembersSection() {
  const { members: lists, model, notify, attempt } = useRoom();
  const { members, invitations } = useStore(lists) ?? { members: [], invitations: [] };
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'editor' | 'viewer'>('editor');
  useEffect(() => void attempt(() => loadMembers(lists)), [lists]);
  const makeOwner = async (member: Member) => {
    const question = t('settings:members.makeOwnerQuestion', { email: member.email });
    if (await confirmInPage(question, t('settings:members.makeOwner')))
      await attempt(
        () => transferOwnership(lists, model, member.userId),
        t('settings:members.nowOwns', { email: member.email }),
      );
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
      <h3 id="members">{t('settings:members.title')}</h3>
      <ul class="list" data-testid="members">
        {members.map((m) => (
          <li key={m.userId}>
            <span>
              {m.email}{' '}
              {m.role === 'owner' ? (
                <span class="muted">{roleWord('owner')}</span>
              ) : (
                <select
                  class="role"
                  aria-label={t('settings:members.roleOf', { email: m.email })}
                  value={m.role}
                  onChange={(e) => {
                    const next = e.currentTarget.value as 'editor' | 'viewer';
                    void attempt(
                      () => changeRole(lists, m.userId, next),
                      next === 'editor'
                        ? t('settings:members.nowEditor', { email: m.email })
                        : t('settings:members.nowViewer', { email: m.email }),
                    );
                  }}
                >
                  <option value="editor">{roleWord('editor')}</option>
                  <option value="viewer">{roleWord('viewer')}</option>
                </select>
              )}
            </span>
            {m.role !== 'owner' && (
              <span class="member-actions">
                <button type="button" class="link" onClick={() => makeOwner(m)}>
                  {t('settings:members.makeOwner')}
                </button>
                <button
                  type="button"
                  class="link"
                  onClick={async () =>
                    (await confirmInPage(
                      t('settings:members.removeQuestion', { email: m.email }),
                      t('settings:members.remove'),
                    )) && attempt(() => removeMember(lists, m.userId))
                  }
                >
                  {t('settings:members.remove')}
                </button>
              </span>
            )}
          </li>
        ))}
      </ul>
      <h4>{t('settings:members.pending')}</h4>
      {invitations.length === 0 ? (
        <p class="muted">{t('settings:members.none')}</p>
      ) : (
        <ul class="list" data-testid="invitations">
          {invitations.map((i) => (
            <li key={i.email}>
              <span>
                {i.email} <span class="muted">{roleWord(i.role)}</span>
              </span>
              <button
                type="button"
                class="link"
                onClick={() => attempt(() => revokeInvitation(lists, i.email), t('settings:members.invitationRevoked'))}
              >
                {t('settings:members.revoke')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="inline" onSubmit={invite} aria-label={t('settings:members.inviteForm')}>
        <input
          type="email"
          aria-label={t('settings:members.emailToInvite')}
          placeholder={t('settings:members.emailPlaceholder')}
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
          required
          {...inputLimits('POST /api/rooms/{roomId}/invite', 'email')}
        />
        <select
          aria-label={t('settings:members.role')}
          value={role}
          onChange={(e) => setRole(e.currentTarget.value as 'editor' | 'viewer')}
        >
          <option value="editor">{t('settings:members.choices.editor')}</option>
          <option value="viewer">{t('settings:members.choices.viewer')}</option>
        </select>
        <button type="submit">{t('settings:members.invite')}</button>
      </form>
    </section>
  );
}
