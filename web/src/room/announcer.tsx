import { useEffect, useState } from 'preact/hooks';
import type { LiveChange } from '../api/types';
import { session } from '../session';
import type { LiveChannel } from './live';
import type { Present } from './presence';
import { useRoom } from './room-context';
import { actorName, type Described, describeEntry } from './timeline';
import { t } from '../i18n/index.js';

/** Others' changes arriving together are gathered this long, then told as one sentence. */
const GATHER_MS = 1000;

/**
 * A live change as the timeline words a history entry: its maker by the name they are present
 * under (else "An API token", "Someone"), its object by its title, name or label.
 */
export function asDescribed(change: LiveChange, present: Present[]): Described {
  const { kind, id } = change.actor;
  const name = present.find((p) => p.kind === kind && p.id === id)?.name;
  const data = (change.data ?? {}) as { title?: string | null; name?: string | null; label?: string | null };
  return {
    type: change.type,
    objectType: change.objectType,
    objectName: data.title ?? data.name ?? data.label ?? null,
    actor: { kind, id, ...(name && { name }) },
  };
}

/**
 * Tells a screen reader, politely (it waits for a pause), of the changes others make to the room
 * as they arrive on the live channel, in the timeline's words: one sentence for one change, a
 * count for several that came within a second ("Bo made 3 changes."). This page's own changes are not told: its person
 * made them.
 */
export function Announcer({ live }: { live: LiveChannel | null }) {
  const { presence } = useRoom();
  const [said, say] = useState('');
  useEffect(() => {
    if (!live) return;
    let gathered: Described[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tell = () => {
      const names = [...new Set(gathered.map(actorName))];
      say(
        gathered.length === 1
          ? t('room:announcer.one', { change: describeEntry(gathered[0]!) })
          : t('room:announcer.many', {
              count: gathered.length,
              names: names.join(t('room:announcer.separator')),
            }),
      );
      gathered = [];
      timer = undefined;
    };
    const stop = live.applied.subscribe((change) => {
      if (!change || (change.actor.kind === 'user' && change.actor.id === session.get().user?.id)) return;
      gathered.push(asDescribed(change, presence.people.get()));
      timer ??= setTimeout(tell, GATHER_MS);
    });
    return () => {
      stop();
      clearTimeout(timer);
    };
  }, [live, presence]);
  return (
    <div class="visually-hidden" role="status" data-testid="announcements">
      {said}
    </div>
  );
}
