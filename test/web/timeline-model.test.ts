import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HistoryEvent, Marker } from '../../web/src/api/types.js';
import type { RoomState } from '../../web/src/room/room-state.js';
import { shownState, upcoming, type PastContent } from '../../web/src/room/time-view.js';
import {
  dateOf,
  describeEntry,
  filterEntries,
  formatDate,
  formatDateTime,
  groupEntries,
  headingOf,
  isRestorable,
  type TimelineSettings,
} from '../../web/src/room/timeline.js';

/**
 * The timeline's pure steps (web/src/room/timeline.ts and time-view.ts): entries filtered,
 * dated, grouped and described with names as the room's timeline settings say, and what the
 * map draws in a past or future view. Dates are made in the local time zone, as the page shows them.
 */

const SETTINGS: TimelineSettings = {
  groupingMode: 'none',
  showMarkersOnly: false,
  showAdditionsOnly: false,
  dateDisplayMode: 'creation',
  dateTimeFormat: 'iso',
  sliderMode: 'current',
};
let version = 0;
const entry = (type: string, at: number, extra: Partial<HistoryEvent> = {}): HistoryEvent => ({
  id: `h-${++version}`,
  version,
  type,
  objectType: type.split('.')[0]!,
  objectId: `${type.split('.')[0]}-1`,
  actor: { kind: 'user', id: 'user-ann', name: 'Ann' },
  objectName: 'Bern',
  at,
  changes: {},
  ...extra,
});
const local = (y: number, m: number, d: number, h = 12, min = 0) => new Date(y, m - 1, d, h, min).getTime();

describe('the timeline in words, grouped and dated', () => {
  test('names, not ids: who did what to which object', () => {
    assert.equal(describeEntry(entry('marker.created', 1)), "Ann added marker 'Bern'");
    assert.equal(
      describeEntry(entry('marker.updated', 1, { changes: { latitude: 1, longitude: 2 } })),
      "Ann moved marker 'Bern'",
    );
    assert.equal(describeEntry(entry('marker.updated', 1, { changes: { title: 'Bern' } })), "Ann edited marker 'Bern'");
    assert.equal(
      describeEntry(entry('room.updated', 1, { objectType: 'room', changes: { basemaps: [] } })),
      "Ann changed the room's base maps",
    );
    assert.equal(
      describeEntry(entry('marker.created', 1, { changes: { restoredFrom: 'h-1' } })),
      "Ann restored marker 'Bern'",
    );
    assert.equal(
      describeEntry(entry('drawing.deleted', 1, { objectName: null, actor: { kind: 'token', id: 'tok-1' } })),
      'An API token deleted an untitled drawing',
    );
    assert.equal(
      describeEntry(entry('member.updated', 1, { objectName: 'Bob', changes: { role: 'editor' } })),
      'Ann made Bob an editor',
    );
    assert.equal(describeEntry(entry('rasterLayer.updated', 1)), "Ann edited raster 'Bern'");
    assert.equal(describeEntry(entry('room.cleared', 1, { objectName: null })), 'Ann cleared the room');
  });

  test('markers only, additions only', () => {
    const all = [entry('marker.created', 1), entry('marker.updated', 2), entry('drawing.created', 3)];
    assert.deepEqual(
      filterEntries(all, { ...SETTINGS, showMarkersOnly: true }).map((e) => e.type),
      ['marker.created', 'marker.updated'],
    );
    assert.deepEqual(
      filterEntries(all, { ...SETTINGS, showAdditionsOnly: true }).map((e) => e.type),
      ['marker.created', 'drawing.created'],
    );
    assert.deepEqual(
      filterEntries(all, { ...SETTINGS, showMarkersOnly: true, showAdditionsOnly: true }).map((e) => e.type),
      ['marker.created'],
    );
    assert.equal(filterEntries(all, SETTINGS).length, 3);
  });

  test("dated by the marker's event date (as the change set it, else as it is now) or by the change", () => {
    const set = entry('marker.updated', 100, { changes: { eventDate: 5000 } });
    const unset = entry('marker.updated', 100, { changes: { title: 'x' } });
    assert.equal(dateOf(set, 'event'), 5000);
    assert.equal(dateOf(unset, 'event', 7000), 7000);
    assert.equal(dateOf(unset, 'event', null), 100);
    assert.equal(dateOf(set, 'creation'), 100);
    assert.equal(dateOf(entry('drawing.created', 100), 'event', 9000), 100, 'only markers have event dates');
  });

  test("grouped by day, month or year, newest first, with headings in the room's format", () => {
    const dated = [
      { entry: entry('marker.created', 0), date: local(2026, 11, 25, 9) },
      { entry: entry('marker.created', 0), date: local(2026, 11, 26, 8) },
      { entry: entry('marker.created', 0), date: local(2026, 11, 26, 18) },
      { entry: entry('marker.created', 0), date: local(2025, 1, 3) },
    ];
    const byDay = groupEntries(dated, 'day', 'iso');
    assert.deepEqual(
      byDay.map((g) => [g.heading, g.entries.length]),
      [
        ['2026-11-26', 2],
        ['2026-11-25', 1],
        ['2025-01-03', 1],
      ],
    );
    assert.equal(byDay[0]!.entries[0]!.date, local(2026, 11, 26, 18), 'newest first within a day');
    assert.deepEqual(
      groupEntries(dated, 'month', 'dmy').map((g) => g.heading),
      ['November 2026', 'January 2025'],
    );
    assert.deepEqual(
      groupEntries(dated, 'month', 'iso').map((g) => g.heading),
      ['2026-11', '2025-01'],
    );
    assert.deepEqual(
      groupEntries(dated, 'year', 'iso').map((g) => [g.heading, g.entries.length]),
      [
        ['2026', 3],
        ['2025', 1],
      ],
    );
    const none = groupEntries(dated, 'none', 'iso');
    assert.equal(none.length, 1);
    assert.equal(none[0]!.heading, null);
    assert.deepEqual(groupEntries([], 'day', 'iso'), []);
  });

  test('dates and times in the three formats', () => {
    const afternoon = local(2026, 3, 4, 14, 5);
    assert.equal(formatDate(afternoon, 'dmy'), '04/03/2026');
    assert.equal(formatDate(afternoon, 'mdy'), '03/04/2026');
    assert.equal(formatDate(afternoon, 'iso'), '2026-03-04');
    assert.equal(formatDateTime(afternoon, 'iso'), '2026-03-04 14:05');
    assert.equal(formatDateTime(afternoon, 'dmy'), '04/03/2026 14:05');
    assert.equal(formatDateTime(afternoon, 'mdy'), '03/04/2026 2:05 PM');
    assert.equal(formatDateTime(local(2026, 3, 4, 0, 7), 'mdy'), '03/04/2026 12:07 AM');
    assert.equal(headingOf(afternoon, 'day', 'mdy'), '03/04/2026');
  });

  test('what can be restored: objects, not settings, clears, imports or deleted layers', () => {
    assert.equal(isRestorable(entry('marker.deleted', 1)), true);
    assert.equal(isRestorable(entry('comment.updated', 1)), true);
    assert.equal(isRestorable(entry('layer.updated', 1)), true);
    assert.equal(isRestorable(entry('layer.deleted', 1)), false);
    assert.equal(isRestorable(entry('rasterLayer.deleted', 1)), false);
    assert.equal(isRestorable(entry('room.updated', 1)), false);
    assert.equal(isRestorable(entry('room.imported', 1)), false);
    assert.equal(isRestorable(entry('presentation.updated', 1)), false);
  });
});

describe('what the map draws in a past or future view', () => {
  const marker = (id: string, eventDate?: number): Marker => ({ id, latitude: 1, longitude: 2, eventDate });
  const state = {
    markers: new Map([
      ['m-now', marker('m-now')],
      ['m-soon', marker('m-soon', 2000)],
      ['m-later', marker('m-later', 5000)],
      ['m-gone', marker('m-gone', 500)],
    ]),
    drawings: new Map(),
    layers: [{ id: 'layer-kept' }, { id: 'layer-new' }],
    rasters: [],
    version: 9,
  } as unknown as RoomState;

  test('now: the state itself', () => {
    assert.equal(shownState(state, { mode: 'current' }, 1000), state);
    assert.equal(shownState(state, { mode: 'past', at: null, content: null }, 1000), state, 'the slider at its end');
  });

  test('the past: its markers and drawings; its layers only where they still exist; nothing while it loads', () => {
    const content = {
      at: 1,
      version: 3,
      complete: true,
      markers: new Map([['m-old', marker('m-old')]]),
      drawings: new Map(),
      layers: [{ id: 'layer-kept' }, { id: 'layer-deleted' }],
      rasters: [],
    } as unknown as PastContent;
    const past = shownState(state, { mode: 'past', at: 1, content }, 1000);
    assert.deepEqual([...past.markers.keys()], ['m-old']);
    assert.deepEqual(
      past.layers.map((l) => l.id),
      ['layer-kept'],
    );
    assert.equal(shownState(state, { mode: 'past', at: 1, content: null }, 1000).markers.size, 0);
  });

  test('the future: markers whose event date is ahead, up to the slider', () => {
    assert.deepEqual(
      [...shownState(state, { mode: 'future', until: null }, 1000).markers.keys()],
      ['m-soon', 'm-later'],
    );
    assert.deepEqual([...upcoming(state.markers, 1000, 3000).keys()], ['m-soon']);
  });
});
