// `.js`: test/web/timeline-model.test.ts imports this file, type-checked under NodeNext.
import type { HistoryEvent, Room } from '../api/types.js';
import { formatDateTime as inLanguage, t } from '../i18n/index.js';

/** The room's timeline settings (the owner's choice; defaults in docs/decisions.md). */
export type TimelineSettings = Room['timelineSettings'];
export type DateTimeFormat = TimelineSettings['dateTimeFormat'];

/** The entries the settings keep: markers only, additions only, or all. */
export function filterEntries(entries: HistoryEvent[], settings: TimelineSettings): HistoryEvent[] {
  return entries.filter(
    (e) =>
      (!settings.showMarkersOnly || e.objectType === 'marker') &&
      (!settings.showAdditionsOnly || e.type.endsWith('.created')),
  );
}

/**
 * The date an entry is shown with: its marker's event date (as the change set it, else as the
 * marker has it now) when the room dates by event, else (and for every entry without one) the
 * moment the change was made.
 */
export function dateOf(entry: HistoryEvent, mode: TimelineSettings['dateDisplayMode'], eventDateNow?: number | null) {
  if (mode === 'event' && entry.objectType === 'marker') {
    const set = entry.changes?.eventDate;
    if (typeof set === 'number') return set;
    if (typeof eventDateNow === 'number') return eventDateNow;
  }
  return entry.at;
}

export interface TimelineGroup {
  /** The group's heading (a day, month or year in the room's format); null without grouping. */
  heading: string | null;
  entries: { entry: HistoryEvent; date: number }[];
}

/** The entries newest first by their shown date, in groups of a day, month or year (one group for `none`). */
export function groupEntries(
  entries: { entry: HistoryEvent; date: number }[],
  grouping: TimelineSettings['groupingMode'],
  format: DateTimeFormat,
): TimelineGroup[] {
  const sorted = [...entries].sort((a, b) => b.date - a.date || b.entry.version - a.entry.version);
  if (grouping === 'none') return sorted.length ? [{ heading: null, entries: sorted }] : [];
  const groups: TimelineGroup[] = [];
  for (const item of sorted) {
    const heading = headingOf(item.date, grouping, format);
    const last = groups[groups.length - 1];
    if (last?.heading === heading) last.entries.push(item);
    else groups.push({ heading, entries: [item] });
  }
  return groups;
}

const two = (n: number) => String(n).padStart(2, '0');

/** A day, month or year heading in the room's format, in the page's time zone. */
export function headingOf(ms: number, grouping: 'day' | 'month' | 'year', format: DateTimeFormat): string {
  const d = new Date(ms);
  if (grouping === 'year') return String(d.getFullYear());
  if (grouping === 'month')
    return format === 'iso'
      ? `${d.getFullYear()}-${two(d.getMonth() + 1)}`
      : inLanguage(ms, { month: 'long', year: 'numeric' });
  return formatDate(ms, format);
}

/** A date: 26/11/2026 (dmy), 11/26/2026 (mdy), 2026-11-26 (iso). */
export function formatDate(ms: number, format: DateTimeFormat): string {
  const d = new Date(ms);
  const [day, month, year] = [two(d.getDate()), two(d.getMonth() + 1), d.getFullYear()];
  if (format === 'dmy') return `${day}/${month}/${year}`;
  if (format === 'mdy') return `${month}/${day}/${year}`;
  return `${year}-${month}-${day}`;
}

/** A date and time: 26/11/2026 14:05 (dmy), 11/26/2026 2:05 PM (mdy), 2026-11-26 14:05 (iso). */
export function formatDateTime(ms: number, format: DateTimeFormat): string {
  const d = new Date(ms);
  if (format === 'mdy') {
    const hours = d.getHours() % 12 || 12;
    return `${formatDate(ms, format)} ${hours}:${two(d.getMinutes())} ${d.getHours() < 12 ? 'AM' : 'PM'}`;
  }
  return `${formatDate(ms, format)} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** Who made a change, by name: a user's name or e-mail, a token's name. */
export function actorName(entry: Pick<HistoryEvent, 'actor'>): string {
  return entry.actor.name ?? (entry.actor.kind === 'token' ? t('room:timeline.apiToken') : t('room:timeline.someone'));
}

/** The object an entry changed, by its title or name: "marker 'Bern'", "an untitled marker". */
export function objectLabel(entry: Pick<HistoryEvent, 'objectType' | 'objectName'>): string {
  const name = entry.objectName;
  switch (entry.objectType) {
    case 'marker':
      return name ? t('room:timeline.named.marker', { name }) : t('room:timeline.untitled.marker');
    case 'drawing':
      return name ? t('room:timeline.named.drawing', { name }) : t('room:timeline.untitled.drawing');
    case 'layer':
      return name ? t('room:timeline.named.layer', { name }) : t('room:timeline.untitled.layer');
    case 'rasterLayer':
      return name ? t('room:timeline.named.raster', { name }) : t('room:timeline.untitled.raster');
    case 'slide':
      return name ? t('room:timeline.named.slide', { name }) : t('room:timeline.untitled.slide');
    case 'comment':
      return name ? t('room:timeline.named.comment', { name }) : t('room:timeline.untitled.comment');
    case 'reply':
      return name ? t('room:timeline.named.reply', { name }) : t('room:timeline.untitled.reply');
    case 'icon':
      return name ? t('room:timeline.named.icon', { name }) : t('room:timeline.untitled.icon');
    default: {
      const noun = entry.objectType;
      return name ? t('room:timeline.named.other', { noun, name }) : t('room:timeline.untitled.other', { noun });
    }
  }
}

/** What a change's words are made of: a history entry, or a live change named as history names it. */
export type Described = Pick<HistoryEvent, 'type' | 'objectType' | 'objectName' | 'changes' | 'actor'>;

/** One change in words, with names rather than ids: "Ann moved marker 'Bern'". */
export function describeEntry(entry: Described): string {
  return t('room:timeline.entry', { actor: actorName(entry), change: describeChange(entry) });
}

/** One change in words without its actor: "moved marker 'Bern'". */
export function describeChange(entry: Described): string {
  const changes = entry.changes ?? {};
  switch (entry.type) {
    case 'room.updated':
      return 'basemaps' in changes ? t('room:timeline.change.basemapsChanged') : t('room:timeline.change.roomUpdated');
    case 'room.cleared':
      return t('room:timeline.change.roomCleared');
    case 'room.imported':
      return t('room:timeline.change.roomImported');
    case 'presentation.updated':
      return t('room:timeline.change.slidesReordered');
    case 'member.updated': {
      const role = typeof changes.role === 'string' ? changes.role : null;
      const who = entry.objectName ?? t('room:timeline.aMember');
      if (!role) return t('room:timeline.change.roleChanged', { who });
      if (role === 'editor') return t('room:timeline.change.madeEditor', { who });
      if (role === 'viewer') return t('room:timeline.change.madeViewer', { who });
      if (role === 'owner') return t('room:timeline.change.madeOwner', { who });
      return t('room:timeline.change.madeRole', { who, role });
    }
  }
  const object = objectLabel(entry);
  if (typeof changes.restoredFrom === 'string') return t('room:timeline.change.restored', { object });
  if (entry.type.endsWith('.created')) return t('room:timeline.change.added', { object });
  if (entry.type.endsWith('.deleted')) return t('room:timeline.change.deleted', { object });
  const keys = Object.keys(changes);
  if (entry.objectType === 'marker' && keys.length > 0 && keys.every((k) => k === 'latitude' || k === 'longitude'))
    return t('room:timeline.change.moved', { object });
  if (entry.objectType === 'comment' && typeof changes.resolved === 'boolean')
    return changes.resolved
      ? t('room:timeline.change.resolved', { object })
      : t('room:timeline.change.reopened', { object });
  return t('room:timeline.change.edited', { object });
}

/** Whether the service can put the entry's object back (docs/decisions.md, "Restore from history"). */
export function isRestorable(entry: Pick<HistoryEvent, 'type' | 'objectType'>): boolean {
  const action = entry.type.slice(entry.type.lastIndexOf('.') + 1);
  if (['marker', 'drawing', 'comment', 'reply', 'slide', 'feature'].includes(entry.objectType))
    return ['created', 'updated', 'deleted'].includes(action);
  if (entry.objectType === 'layer' || entry.objectType === 'rasterLayer')
    return action === 'created' || action === 'updated';
  return false;
}
