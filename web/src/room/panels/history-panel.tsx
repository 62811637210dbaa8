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
import { language, t } from '../../i18n/index.js';

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
      <h2>{t('draw:history.title')}</h2>
      <TimeSlider />
      <p class="muted">{summary(settings)}</p>
      {restored && <RestoreReport {...restored} format={settings.dateTimeFormat} onClose={() => setRestored(null)} />}
      <div data-testid="history">
        {groups.length === 0 && <p class="muted">{t('draw:history.empty')}</p>}
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
          {t('draw:history.older')}
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
        {byEvent
          ? t('draw:history.eventDate', { date: formatDateTime(date, settings.dateTimeFormat) })
          : formatDateTime(date, settings.dateTimeFormat)}
      </span>
      <span class="entry-actions">
        <button type="button" class="link" onClick={() => showMoment(room, entry.at)}>
          {t('draw:history.mapThen')}
        </button>
        {room.canEdit && isRestorable(entry) && (
          <button
            type="button"
            class="link"
            onClick={restore}
            aria-label={t('draw:history.restoreLabel', { change: describeEntry(entry) })}
          >
            {t('draw:history.restore')}
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
        {entry.type.endsWith('.deleted')
          ? t('draw:history.restoredDeleted', { object: objectLabel(entry) })
          : t('draw:history.restoredThen', { object: objectLabel(entry) })}
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
          {t('draw:history.replaced', {
            count: overwrote.laterEntries,
            actor: actorName(overwrote),
            date: formatDateTime(overwrote.at, format),
          })}
        </p>
      )}
      <button type="button" onClick={onClose}>
        {t('draw:history.dismiss')}
      </button>
    </div>
  );
}

/** The room's timeline settings in words. */
function summary(settings: TimelineSettings) {
  const parts = [
    grouping(settings.groupingMode),
    settings.showMarkersOnly ? t('draw:history.summary.markersOnly') : null,
    settings.showAdditionsOnly ? t('draw:history.summary.additionsOnly') : null,
    settings.dateDisplayMode === 'event' ? t('draw:history.summary.byEventDate') : t('draw:history.summary.byChange'),
  ].filter((part): part is string => part !== null);
  const list = new Intl.ListFormat(language(), { type: 'unit', style: 'short' }).format(parts);
  return t('draw:history.summary.sentence', { parts: list });
}

/** How the timeline groups its changes, in words. */
function grouping(mode: TimelineSettings['groupingMode']): string {
  switch (mode) {
    case 'none':
      return t('draw:history.summary.notGrouped');
    case 'day':
      return t('draw:history.summary.byDay');
    case 'month':
      return t('draw:history.summary.byMonth');
    case 'year':
      return t('draw:history.summary.byYear');
  }
}
