import type { Actor } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import { inChunks } from '../../db/room-table.js';
import { invalidFile } from '../../errors.js';
import type { GpkgReadLayout } from '../../geo-engine/gpkg-reader.js';
import type { Exchange, FileRow, RestoreContext, RestoreInput } from '../exchange/exchange.js';
import type { ImportCounts } from '../exchange/exchange.schemas.js';
import type { StoredFiles } from '../files/stored-files.js';
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportColumn, META, toRowValue } from './export-tables.js';

export type { ImportCounts };

/** What restoring reads of an exchange: how its rows come back. */
type RestoredTable = Pick<Exchange, 'restore'>;

/** Objects one import restores at most (each is held until the import's one transaction); fixed, far above any export's. */
export const MAX_RESTORED_OBJECTS = 1_000_000;

/** How the GeoPackage reader reads a room export (geo-engine/gpkg-reader.ts). */
export const EXPORT_LAYOUT: GpkgReadLayout<ExportColumn> = {
  metaTable: META.table,
  format: EXPORT_FORMAT,
  version: String(EXPORT_VERSION),
  maxRows: MAX_RESTORED_OBJECTS,
  rowValue: toRowValue,
};

/**
 * The small objects of a restored export: each domain's exchange turns a row of the file into
 * a new row (under a new id, with references carried over to the new ids of what was restored
 * before); the rows are held here and inserted in the import's final transaction. Files
 * (icons, photos) are stored as they come, and removed again if the import fails.
 */
export class RestoredContent {
  readonly counts: ImportCounts = {
    markers: 0,
    drawings: 0,
    comments: 0,
    replies: 0,
    slides: 0,
    icons: 0,
    images: 0,
    layers: 0,
    rasterLayers: 0,
  };
  readonly skipped: Record<string, string>[] = [];
  /** Old id to new id, one map per kind: a crafted file cannot make a slide's marker a drawing. */
  private readonly ids = new Map<string, Map<string, string>>();
  private readonly storedKeys: string[] = [];
  private readonly rows = new Map<RestoredTable, unknown[]>();
  private objects = 0;
  private readonly context: RestoreContext;

  constructor(
    roomId: string,
    actor: Actor,
    private readonly files: StoredFiles,
  ) {
    this.context = {
      roomId,
      actor,
      countOne: () => this.countOne(),
      newIdOf: (kind, oldId) => this.ids.get(kind)?.get(String(oldId)),
      remember: (kind, oldId, newId) => this.remember(kind, oldId, newId),
      store: async (file) => {
        await this.files.store([{ ...file, roomId }]);
        this.storedKeys.push(file.key);
      },
    };
  }

  private get roomId() {
    return this.context.roomId;
  }

  private remember(kind: string, oldId: unknown, newId: string) {
    const ids = this.ids.get(kind) ?? new Map<string, string>();
    this.ids.set(kind, ids.set(String(oldId), newId));
  }

  /** A vector layer staged by the ingest for the file's layer `oldId`. */
  mapLayer(oldId: string, newId: string) {
    this.remember('layer', oldId, newId);
    this.counts.layers += 1;
  }

  /** A raster staged by the ingest for the file's layer `oldId`. */
  mapRaster(oldId: string, newId: string) {
    this.remember('raster', oldId, newId);
    this.counts.rasterLayers += 1;
  }

  /** Restores one row of an exchange's table (a feature's properties with its geometry, a row with its file). */
  async add(exchange: RestoredTable, row: FileRow, input: Partial<Omit<RestoreInput, 'index'>> = {}): Promise<void> {
    const restore = exchange.restore;
    if (!restore) return;
    let kept = this.rows.get(exchange);
    if (!kept) this.rows.set(exchange, (kept = []));
    const restored = await restore.add(row, this.context, {
      geometry: input.geometry ?? null,
      data: input.data ?? null,
      index: kept.length,
      ...(input.fromRoom && { fromRoom: true }),
    });
    if (restored === null) return;
    this.counts[restore.counted] += 1;
    if (restore.insert) kept.push(restored);
  }

  /** Counts one restored object; past MAX_RESTORED_OBJECTS the file is refused. */
  private countOne() {
    this.objects += 1;
    if (this.objects > MAX_RESTORED_OBJECTS)
      throw invalidFile(
        `The export holds more than ${MAX_RESTORED_OBJECTS} objects; one import restores at most that many`,
      );
  }

  /** Inserts the rows, each table after those it refers to, inside the import's transaction. */
  async insert(trx: Db, exchanges: RestoredTable[]): Promise<void> {
    for (const exchange of exchanges) {
      const rows = this.rows.get(exchange);
      const restore = exchange.restore;
      if (!rows || !restore?.insert) continue;
      await restore.arrange?.(trx, rows, this.roomId);
      for (const chunk of inChunks(rows, 200)) await restore.insert(trx, chunk);
    }
  }

  /** Removes the files stored for an import that failed. */
  async discardFiles(): Promise<void> {
    await this.files.remove(this.roomId, this.storedKeys);
  }
}
