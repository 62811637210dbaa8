import { useEffect, useState } from 'preact/hooks';
import type { HistoryEvent, LiveChange } from '../../api/types';
import { useStore } from '../../store';
import { HISTORY_PAGE, readHistory } from '../actions/history';
import { loadMembers } from '../actions/members';
import { useRoom } from '../room-context';

/** The room's timeline, newest first, with who made each change and when; pages back on demand. */
export function HistoryPanel() {
  const { model, members, isOwner, attempt } = useRoom();
  const { version } = useStore(model)!;
  const [events, setEvents] = useState<HistoryEvent[]>([]);
  const [more, setMore] = useState(false);
  const load = async (before?: number) => {
    const page = await attempt(() => readHistory(model, before));
    if (!page) return;
    setEvents((old) => (before ? [...old, ...page] : page));
    setMore(page.length === HISTORY_PAGE);
  };
  useEffect(() => void load(), [version]);
  // The owner sees who made each change by address; others see ids.
  useEffect(() => void (isOwner && !members.get() && loadMembers(members).catch(() => undefined)), [isOwner]);
  return (
    <div>
      <h2>History</h2>
      <ol class="history" data-testid="history">
        {events.map((e) => (
          <li key={e.id}>
            <strong>{describe(e.type)}</strong> <span class="muted">{e.objectId}</span>
            <br />
            <span class="muted">
              by {e.actor.kind === 'token' ? `API token ${e.actor.id}` : <Actor id={e.actor.id} />},{' '}
              {new Date(e.at).toLocaleString()}
            </span>
          </li>
        ))}
      </ol>
      {more && (
        <button type="button" onClick={() => load(events[events.length - 1]!.version)}>
          Older changes
        </button>
      )}
    </div>
  );
}

function Actor({ id }: { id: string }) {
  const lists = useStore(useRoom().members);
  return <>{lists?.members.find((m) => m.userId === id)?.email ?? id}</>;
}

/** What each change is called; a change type the service adds must be named here. */
const DESCRIPTIONS: Record<LiveChange['type'], string> = {
  'marker.created': 'Marker created',
  'marker.updated': 'Marker updated',
  'marker.deleted': 'Marker deleted',
  'drawing.created': 'Drawing created',
  'drawing.updated': 'Drawing updated',
  'drawing.deleted': 'Drawing deleted',
  'layer.created': 'Layer created',
  'layer.updated': 'Layer updated',
  'layer.deleted': 'Layer deleted',
  'rasterLayer.created': 'Raster created',
  'rasterLayer.updated': 'Raster updated',
  'rasterLayer.deleted': 'Raster deleted',
  'slide.created': 'Slide created',
  'slide.updated': 'Slide updated',
  'slide.deleted': 'Slide deleted',
  'presentation.updated': 'Slide order updated',
  'comment.created': 'Comment created',
  'comment.updated': 'Comment updated',
  'comment.deleted': 'Comment deleted',
  'reply.created': 'Reply created',
  'reply.deleted': 'Reply deleted',
  'icon.created': 'Icon created',
  'member.updated': 'Member role changed',
  'room.updated': 'Room updated',
  'room.cleared': 'Room cleared',
  'room.imported': 'Room imported',
};

const isChangeType = (type: string): type is LiveChange['type'] => Object.hasOwn(DESCRIPTIONS, type);

/** The history's `type` is a string in its schema; one the page does not know is shown as it is. */
function describe(type: HistoryEvent['type']) {
  return isChangeType(type) ? DESCRIPTIONS[type] : type;
}
