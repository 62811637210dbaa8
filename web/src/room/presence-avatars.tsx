import { useEffect, useRef, useState } from 'preact/hooks';
import { session } from '../session';
import { useStore } from '../store';
import { colourOf, initialsOf, keyOf, type Present, type RoomPresence } from './presence';
import { formatDateTime, t } from '../i18n/index.js';

/**
 * Who has the room open: an avatar each (initials in their colour, name and since when on
 * hover); a click opens a menu to follow their view, or to stop. The one followed is ringed.
 */
export function PresenceAvatars({ presence }: { presence: RoomPresence }) {
  const people = useStore(presence.people);
  const following = useStore(presence.following);
  const { user } = useStore(session);
  const [open, setOpen] = useState<string | null>(null);
  const element = useRef<HTMLDivElement>(null);
  // An open menu closes on Escape or a click elsewhere.
  useEffect(() => {
    if (!open) return;
    const close = (event: Event) => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !element.current?.contains(event.target as Node))
        setOpen(null);
    };
    document.addEventListener('keydown', close);
    document.addEventListener('pointerdown', close);
    return () => {
      document.removeEventListener('keydown', close);
      document.removeEventListener('pointerdown', close);
    };
  }, [open]);
  if (people.length === 0) return null;
  const me = user ? keyOf({ kind: 'user', id: user.id }) : null;
  const followed = people.find((p) => keyOf(p) === following);
  return (
    <div class="presence" data-testid="presence" ref={element}>
      {followed && (
        <span class="following" data-testid="following">
          {t('room:presence.following', { name: followed.name })}
          <button type="button" class="link" onClick={() => presence.following.set(null)}>
            {t('room:presence.stop')}
          </button>
        </span>
      )}
      <ul class="avatars" aria-label={t('room:presence.inRoom')}>
        {people.map((person) => {
          const key = keyOf(person);
          return (
            <li key={key}>
              <button
                type="button"
                class={`avatar${key === following ? ' followed' : ''}`}
                style={{ background: colourOf(key) }}
                title={describe(person, key === me)}
                aria-label={describe(person, key === me)}
                aria-expanded={open === key}
                data-name={person.name}
                onClick={() => setOpen(open === key ? null : key)}
              >
                {initialsOf(person.name)}
              </button>
              {open === key && (
                <div class="avatar-menu" role="menu">
                  <strong>{person.name}</strong>
                  <span class="muted">{describeSince(person)}</span>
                  {key === me ? (
                    <span class="muted">{t('room:presence.thisIsYou')}</span>
                  ) : (
                    <button
                      type="button"
                      role="menuitem"
                      onClick={() => {
                        presence.toggleFollow(key);
                        setOpen(null);
                      }}
                    >
                      {key === following ? t('room:presence.stopFollowing') : t('room:presence.follow')}
                    </button>
                  )}
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

const describeSince = (person: Present) =>
  t('room:presence.since', { time: formatDateTime(person.since, { hour: '2-digit', minute: '2-digit' }) });

function describe(person: Present, isMe: boolean) {
  const who = person.kind === 'token' ? t('room:presence.token', { name: person.name }) : person.name;
  const since = describeSince(person);
  return isMe ? t('room:presence.describeMe', { who, since }) : t('room:presence.describe', { who, since });
}
