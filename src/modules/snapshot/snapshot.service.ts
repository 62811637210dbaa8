import type { Static } from 'typebox';
import type { RoomTable } from '../../db/room-table.js';
import type { RoomRow } from '../../db/tables.js';
import { presentDrawing } from '../drawings/drawings.presenter.js';
import type { HistoryRepository } from '../history/history.repository.js';
import { presentVectorLayer } from '../layers/layers.presenter.js';
import { presentMarker } from '../markers/markers.presenter.js';
import { presentRasterLayer } from '../rasters/rasters.presenter.js';
import type { Snapshot } from './snapshot.schemas.js';

type Shown = Record<string, unknown> & { id: string; createdAt?: number };

/** The object types a snapshot shows, under the answer's keys. */
const KINDS = { marker: 'markers', drawing: 'drawings', layer: 'layers', rasterLayer: 'rasterLayers' } as const;
type Key = (typeof KINDS)[keyof typeof KINDS];
const OBJECT_TYPES = Object.keys(KINDS);

export interface SnapshotParts {
  history: HistoryRepository;
  markers: RoomTable<'markers'>;
  drawings: RoomTable<'drawings'>;
  layers: RoomTable<'layers'>;
}

/**
 * The room's markers, drawings, layers and rasters as they were at a moment, read from the
 * states history keeps (each object's newest entry then, in one indexed query), not by replaying
 * every change. Objects an import brought in have no entry of their own: those unchanged since
 * are shown as they are now; the rest make the answer `complete: false`.
 */
export class SnapshotService {
  constructor(private readonly parts: SnapshotParts) {}

  async at(room: RoomRow, at: number) {
    const { history } = this.parts;
    const version = await history.versionAt(room.id, at);
    const [kept, next, roomWide] = await Promise.all([
      history.newestEach(room.id, OBJECT_TYPES, version),
      history.firstAfterEach(room.id, OBJECT_TYPES, version),
      history.roomWide(room.id),
    ]);
    const lastClear = Math.max(
      0,
      ...roomWide.filter((e) => e.type === 'room.cleared' && e.version <= version).map((e) => Number(e.version)),
    );
    const imports = roomWide.filter((e) => e.type === 'room.imported').map((e) => Number(e.version));
    const clearedAfter = roomWide.some((e) => e.type === 'room.cleared' && e.version > version);

    const answer: Record<Key, Shown[]> = { markers: [], drawings: [], layers: [], rasterLayers: [] };
    const keyOf = (objectType: string, objectId: string) => `${objectType}|${objectId}`;
    const known = new Set(kept.map((row) => keyOf(row.object_type, row.object_id)));
    const changedSince = new Set(next.map((row) => keyOf(row.object_type, row.object_id)));
    for (const row of kept) {
      if (row.version <= lastClear || row.data === null || row.type.endsWith('.deleted')) continue;
      answer[KINDS[row.object_type as keyof typeof KINDS]].push(JSON.parse(row.data) as Shown);
    }
    // Changed or deleted after the moment with no state kept before it: an imported object.
    const unknown = next.filter(
      (row) => !known.has(keyOf(row.object_type, row.object_id)) && !row.type.endsWith('.created'),
    );
    if (imports.length > 0) {
      for (const [objectType, object] of await this.current(room.id)) {
        const key = keyOf(objectType, object.id);
        if (known.has(key) || changedSince.has(key) || (object.createdAt ?? 0) > at) continue;
        answer[KINDS[objectType]].push(object);
      }
    }
    for (const list of Object.values(answer)) list.sort(byCreation);
    const complete =
      unknown.length === 0 && !imports.some((v) => v > version) && !(clearedAfter && imports.some((v) => v <= version));
    // Kept states are the objects as their routes answered them when written (history's `data`).
    return { version, at, complete, ...answer } as Static<typeof Snapshot>;
  }

  /** The room's objects now, as their routes answer them. */
  private async current(roomId: string): Promise<[keyof typeof KINDS, Shown][]> {
    const [markers, drawings, layers] = await Promise.all([
      this.parts.markers.list(roomId),
      this.parts.drawings.list(roomId),
      this.parts.layers.list(roomId),
    ]);
    return [
      ...markers.map((row) => ['marker', presentMarker(row)] as [keyof typeof KINDS, Shown]),
      ...drawings.map((row) => ['drawing', presentDrawing(row)] as [keyof typeof KINDS, Shown]),
      ...layers.map((row) =>
        row.kind === 'raster'
          ? (['rasterLayer', presentRasterLayer(row)] as [keyof typeof KINDS, Shown])
          : (['layer', presentVectorLayer(row)] as [keyof typeof KINDS, Shown]),
      ),
    ];
  }
}

const byCreation = (a: Shown, b: Shown) => (a.createdAt ?? 0) - (b.createdAt ?? 0) || a.id.localeCompare(b.id);
