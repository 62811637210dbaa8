import { useEffect, useState } from 'preact/hooks';
import type { LiveChange } from '../api/types';
import { session } from '../session';
import type { LiveChannel } from './live';
import type { Present } from './presence';
import { useRoom } from './room-context';

/** Others' changes arriving together are gathered this long, then told as one sentence. */
const GATHER_MS = 1000;

const OBJECT: Record<string, string> = {
  marker: 'marker',
  drawing: 'drawing',
  layer: 'layer',
  rasterLayer: 'raster',
  slide: 'slide',
  comment: 'comment',
  reply: 'reply',
  icon: 'icon',
};
const VERB: Record<string, string> = { created: 'added', updated: 'changed', deleted: 'deleted' };

/** Who made a change, by the name they are present under; else what they are. */
export function whoMade(change: LiveChange, present: Present[]): string {
  const { kind, id } = change.actor;
  const here = present.find((p) => p.kind === kind && p.id === id);
  return here?.name ?? (kind === 'token' ? 'A script' : 'Another member');
}

/** A change as a sentence: "Bo added the marker "Hut"." */
export function describeChange(change: LiveChange, who: string): string {
  if (change.type === 'room.cleared') return `${who} cleared the room.`;
  if (change.type === 'room.imported') return `${who} imported content into the room.`;
  if (change.type === 'room.updated') return `${who} changed the room's settings.`;
  if (change.type === 'presentation.updated') return `${who} reordered the slides.`;
  if (change.type === 'member.updated') return `${who} changed a member's role.`;
  const object = OBJECT[change.objectType] ?? change.objectType;
  const verb = VERB[change.type.split('.')[1]!] ?? 'changed';
  const data = (change.data ?? {}) as { title?: string | null; name?: string | null; label?: string | null };
  const name = data.title ?? data.name ?? data.label;
  return name ? `${who} ${verb} the ${object} "${name}".` : `${who} ${verb} a ${object}.`;
}

/**
 * Tells a screen reader, politely (it waits for a pause), of the changes others make to the room
 * as they arrive on the live channel: one sentence for one change, a count for several that came
 * within a second. This page's own changes are not told: its person made them.
 */
export function Announcer({ live }: { live: LiveChannel | null }) {
  const { presence } = useRoom();
  const [said, say] = useState('');
  useEffect(() => {
    if (!live) return;
    let gathered: LiveChange[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tell = () => {
      const people = presence.people.get();
      const names = [...new Set(gathered.map((change) => whoMade(change, people)))];
      say(
        gathered.length === 1
          ? describeChange(gathered[0]!, names[0]!)
          : `${gathered.length} changes by ${names.join(', ')}.`,
      );
      gathered = [];
      timer = undefined;
    };
    const stop = live.applied.subscribe((change) => {
      const me = session.get().user?.id;
      if (!change || (change.actor.kind === 'user' && change.actor.id === me)) return;
      gathered.push(change);
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
