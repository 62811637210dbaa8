import { useEffect, useState } from 'preact/hooks';
import type { HistoryEvent } from '../../api/types';
import { useStore } from '../../store';
import { HISTORY_PAGE, readHistory, restoreEntry } from '../actions/history';
import { useRoom } from '../room-context';
import { showMoment } from '../time-bar';
import {
  actorName,
  dateOf,
  describeEntry,
  filterEntries,
  formatDateTime,
  groupEntries,
  isRestorable,
  objectLabel,
  type TimelineSettings,
} from '../timeline';
import { TimeSlider } from './time-slider';

type Restored = Awaited<ReturnType<typeof restoreEntry>>;

/**
 * The room's timeline: its changes in words, grouped, filtered and dated as the room's timeline
 * settings say; each can show the map right after it, and a restorable one can be restored.
 */
export function HistoryPanel() {
  const { model, attempt } = useRoom();
  const { version, room, markers } = useStore(model)!;
  const settings = room.timelineSettings;
  const [events, setEvents] = useState<HistoryEvent[]>([]);
  const [more, setMore] = useState(false);
  const [restored, setRestored] = useState<{ entry: HistoryEvent; answer: Restored } | null>(null);
  const load = async (before?: number) => {
    const page = await attempt(() => readHistory(model, before));
    if (!page) return;
    setEvents((old) => (before ? [...old, ...page] : page));
    setMore(page.length === HISTORY_PAGE);
  };
  useEffect(() => void load(), [version]);
  const dated = filterEntries(events, settings).map((entry) => ({
    entry,
    date: dateOf(entry, settings.dateDisplayMode, markers.get(entry.objectId)?.eventDate),
  }));
  const groups = groupEntries(dated, settings.groupingMode, settings.dateTimeFormat);
  return (
    <div>
      <h2>Timeline</h2>
      <TimeSlider />
      <p class="muted">{summary(settings)}</p>
      {restored && <RestoreReport {...restored} format={settings.dateTimeFormat} onClose={() => setRestored(null)} />}
      <div data-testid="history">
        {groups.length === 0 && <p class="muted">No changes to show.</p>}
        {groups.map((group) => (
          <section key={group.heading ?? 'all'} class="timeline-group">
            {group.heading && <h3 class="timeline-heading">{group.heading}</h3>}
            <ol class="history">
              {group.entries.map(({ entry, date }) => (
                <TimelineEntry
                  key={entry.id}
                  entry={entry}
                  date={date}
                  settings={settings}
                  onRestored={(answer) => setRestored({ entry, answer })}
                />
              ))}
            </ol>
          </section>
        ))}
      </div>
      {more && (
        <button type="button" onClick={() => load(events[events.length - 1]!.version)}>
          Older changes
        </button>
      )}
    </div>
  );
}

function TimelineEntry({
  entry,
  date,
  settings,
  onRestored,
}: {
  entry: HistoryEvent;
  date: number;
  settings: TimelineSettings;
  onRestored: (answer: Restored) => void;
}) {
  const room = useRoom();
  const restore = async () => {
    const answer = await room.attempt(() => restoreEntry(room.model, entry.id));
    if (answer) onRestored(answer);
  };
  const byEvent = date !== entry.at;
  return (
    <li data-testid="history-entry">
      <span>{describeEntry(entry)}</span>
      <br />
      <span class="muted">
        {byEvent ? 'Event date ' : ''}
        {formatDateTime(date, settings.dateTimeFormat)}
      </span>
      <span class="entry-actions">
        <button type="button" class="link" onClick={() => showMoment(room, entry.at)}>
          Map then
        </button>
        {room.canEdit && isRestorable(entry) && (
          <button type="button" class="link" onClick={restore} aria-label={`Restore: ${describeEntry(entry)}`}>
            Restore
          </button>
        )}
      </span>
    </li>
  );
}

/** What a restore did: what came back, what did not (notes), and whose later changes it replaced. */
function RestoreReport({
  entry,
  answer,
  format,
  onClose,
}: {
  entry: HistoryEvent;
  answer: Restored;
  format: TimelineSettings['dateTimeFormat'];
  onClose: () => void;
}) {
  const overwrote = answer.overwrote;
  return (
    <div class="card restore-report" role="status" data-testid="restore-report">
      <p>
        Restored {objectLabel(entry)} as it was {entry.type.endsWith('.deleted') ? 'before it was deleted' : 'then'}.
      </p>
      {answer.notes.length > 0 && (
        <ul>
          {answer.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
      {overwrote && (
        <p>
          This replaced {overwrote.laterEntries === 1 ? 'a later change' : `${overwrote.laterEntries} later changes`},
          the newest by {actorName(overwrote)} on {formatDateTime(overwrote.at, format)}.
        </p>
      )}
      <button type="button" onClick={onClose}>
        Dismiss
      </button>
    </div>
  );
}

/** The room's timeline settings in words. */
function summary(settings: TimelineSettings) {
  const parts = [
    settings.groupingMode === 'none' ? 'Not grouped' : `Grouped by ${settings.groupingMode}`,
    settings.showMarkersOnly ? 'markers only' : null,
    settings.showAdditionsOnly ? 'additions only' : null,
    settings.dateDisplayMode === 'event' ? "dated by the marker's event date" : 'dated by the change',
  ];
  return `${parts.filter(Boolean).join(', ')}. The room's owner sets these in Settings.`;
}
