import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, ok } from '../../api/client';
import type { HistoryEvent } from '../../api/types';
import { useStore } from '../../store';
import { useRoom } from '../room-context';

/** The room's timeline, newest first, with who made each change and when; pages back on demand. */
export function HistoryPanel() {
  const { model, roomId } = useRoom();
  const { version } = useStore(model)!;
  const [events, setEvents] = useState<HistoryEvent[]>([]);
  const [error, setError] = useState('');
  const [more, setMore] = useState(false);
  const load = async (before?: number) => {
    try {
      const page = (
        await ok(
          api.GET('/api/rooms/{roomId}/history', {
            params: { path: { roomId }, query: { limit: 50, ...(before && { before }) } },
          }),
        )
      ).events;
      setEvents((old) => (before ? [...old, ...page] : page));
      setMore(page.length === 50);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  useEffect(() => void load(), [version]);
  return (
    <div>
      <h2>History</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
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
  const { members } = useMembers();
  return <>{members.get(id) ?? id}</>;
}

const memberNames = new Map<string, Promise<Map<string, string>>>();
/** Member ids to e-mail addresses, for the owner's view of the history; others see ids. */
function useMembers() {
  const { roomId, isOwner } = useRoom();
  const [members, setMembers] = useState(new Map<string, string>());
  useEffect(() => {
    if (!isOwner) return;
    if (!memberNames.has(roomId)) {
      memberNames.set(
        roomId,
        ok(api.GET('/api/rooms/{roomId}/members', { params: { path: { roomId } } })).then(
          (list) => new Map(list.map((m) => [m.userId, m.email])),
        ),
      );
    }
    void memberNames
      .get(roomId)!
      .then(setMembers)
      .catch(() => undefined);
  }, []);
  return { members };
}

function describe(type: string) {
  const [object, action] = type.split('.');
  const names: Record<string, string> = {
    rasterLayer: 'Raster',
    presentation: 'Slide order',
    icon: 'Icon',
    reply: 'Reply',
  };
  const name = names[object!] ?? object![0]!.toUpperCase() + object!.slice(1);
  return `${name} ${action}`;
}
