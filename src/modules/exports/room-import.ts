import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { actorOf, type Actor, type Caller } from '../../auth/access.js';
import type { StagedJobs } from '../../db/staged-jobs.js';
import type { RoomRow } from '../../db/tables.js';
import { invalidFile } from '../../errors.js';
import { newId } from '../../ids.js';
import { type ImportedTable, restoreOrder } from '../exchange/exchange.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { WritePath } from '../history/write-path.js';
import type { LayerIngest, LayerMeta } from '../layers/layer-ingest.js';
import type { GeoLimits } from '../../config.js';
import { tilePyramidToTiff } from '../../geo-engine/gpkg-tiles.js';
import type { RasterIngest } from '../rasters/raster-ingest.js';
import * as T from './export-tables.js';
import { GeoPackageFile } from '../../geo-engine/gpkg-reader.js';
import { EXPORT_LAYOUT, RestoredContent, type ImportCounts } from './restored-content.js';

export interface RoomImportParts {
  files: StoredFiles;
  staged: StagedJobs;
  layers: LayerIngest;
  rasters: RasterIngest;
  writePath: WritePath;
  tmpDir: string;
  geo: GeoLimits;
  exchanges: ImportedTable[];
}

/** One import as it runs: the file, the target room, the importer, its stage and what it restored. */
interface ImportRun {
  gpkg: GeoPackageFile;
  roomId: string;
  actor: Actor;
  stageId: string;
  content: RestoredContent;
  fileBytes: number;
}

/**
 * `POST /import`: a GeoPackage into a room, as one visible step. The service's own export is
 * restored (markers, drawings, comments and replies, slides, icons, photos, vector layers
 * with their styles, rasters from their GeoTIFFs or tiles), every object under a new id with
 * the references between them carried over; any other GeoPackage gives one vector layer per
 * feature table. Bulky parts (layers, rasters, files) are staged first; the small rows and
 * the publication happen in one write-path transaction with one `room.imported` entry. A
 * failure removes everything staged. Room settings and visibility are not changed by an
 * import (they are the owner's, and an import needs only `write`). The small objects are
 * restored by the domains' exchanges (exchange/exchange.ts), each table after the tables it
 * refers to.
 */
export class RoomImport {
  private readonly files: StoredFiles;
  private readonly staged: StagedJobs;
  private readonly layers: LayerIngest;
  private readonly rasters: RasterIngest;
  private readonly writePath: WritePath;
  private readonly tmpDir: string;
  private readonly geo: GeoLimits;
  private readonly exchanges: ImportedTable[];

  constructor(parts: RoomImportParts) {
    ({
      files: this.files,
      staged: this.staged,
      layers: this.layers,
      rasters: this.rasters,
      writePath: this.writePath,
      tmpDir: this.tmpDir,
      geo: this.geo,
      exchanges: this.exchanges,
    } = parts);
  }

  async run(room: RoomRow, caller: Caller, file: { path: string; bytes: number }) {
    await this.files.assertRoomFor(room.id, file.bytes);
    const gpkg = await GeoPackageFile.open(file.path, EXPORT_LAYOUT);
    const actor = actorOf(caller);
    const stageId = newId('import');
    const content = new RestoredContent(room.id, actor, this.files);
    await this.staged.begin(stageId, room.id);
    try {
      const own = gpkg.isRoomExport();
      const run: ImportRun = { gpkg, roomId: room.id, actor, stageId, content, fileBytes: file.bytes };
      if (own) await this.restore(run);
      else await this.foreignLayers(run);
      await this.files.assertRoomFor(room.id, 0);
      const imported = content.counts;
      const summary = {
        source: own ? 'room-export' : 'geopackage',
        ...(own && { sourceRoomId: gpkg.meta().get('source_room_id') }),
        imported,
      };
      await this.writePath.write(room.id, actor, async (trx) => {
        await content.insert(trx, restoreOrder(this.exchanges));
        await this.staged.publish(trx, stageId);
        return {
          result: null,
          changes: [{ type: 'room.imported', objectType: 'room', objectId: room.id, changes: summary, data: summary }],
        };
      });
      return { success: true, imported, ...(content.skipped.length > 0 && { skipped: content.skipped }) };
    } catch (error) {
      await this.layers.undo(stageId);
      await this.rasters.undo(stageId);
      await content.discardFiles();
      await this.staged.end(stageId);
      throw error;
    } finally {
      gpkg.close();
    }
  }

  /** Another program's GeoPackage: each feature table a layer, named after it. */
  private async foreignLayers({ gpkg, roomId, actor, stageId, content }: ImportRun) {
    const opened = await this.layers.open({ path: gpkg.path, fileName: 'import.gpkg' });
    const rows = await this.layers.stage(
      roomId,
      actor,
      opened.tables.map((table) => ({ table, meta: { layerName: table.name.slice(0, 200) } })),
      stageId,
      'geopackage',
    );
    content.counts.layers += rows.length;
  }

  private async restore(run: ImportRun) {
    const { gpkg, content } = run;
    await this.restoreLayers(run);
    for (const exchange of restoreOrder(this.exchanges)) {
      if (exchange.geometryType) {
        // Its table, or one per geometry type (earlier exports wrote one table of every type).
        const tables = [exchange.table, ...(exchange.geometryTables ?? []).map((t) => t.table)];
        for (const table of new Set(tables))
          for await (const { geometry, properties } of gpkg.features(table, this.geo))
            await content.add(exchange, properties, { geometry });
        continue;
      }
      for (const row of gpkg.rows(exchange.table, exchange.columns)) {
        const lookup = exchange.blobLookup;
        const data = lookup ? gpkg.blob(exchange.table, lookup, row[lookup]) : null;
        if (!lookup || data) await content.add(exchange, row, { data });
      }
    }
  }

  private async restoreLayers({ gpkg, roomId, actor, stageId, content, fileBytes }: ImportRun) {
    const layers = this.exchanges.find((e) => e.source === 'layers') as ImportedTable<LayerMeta> | undefined;
    const ingest = layers?.ingest;
    if (!layers || !ingest) return;
    // Each row's kind says what it is restored from (LayerFiles); the matching ingest stages it.
    const sources = gpkg.rows(layers.table, layers.columns).flatMap((row) => {
      const source = ingest.source(row);
      return source ? [{ row, source }] : [];
    });
    const features = sources.flatMap(({ row, source }) =>
      source.type === 'features' ? [{ row, table: source.table }] : [],
    );
    if (features.length > 0) {
      const opened = await this.layers.open({ path: gpkg.path, fileName: 'import.gpkg' });
      const wanted = features.map(({ row, table: name }) => {
        const table = opened.tables.find((t) => t.name === name);
        if (!table) throw invalidFile(`The export names the layer table ${name}, which it does not hold`);
        return { table, meta: ingest.staged(row, table.name), old: String(row.id) };
      });
      const staged = await this.layers.stage(roomId, actor, wanted, stageId, 'geopackage');
      staged.forEach((row, i) => content.mapLayer(wanted[i]!.old, row.id));
    }
    for (const { row, source } of sources) {
      if (source.type !== 'geoTiff') continue;
      const file = await this.geoTiffOf(gpkg, String(row.id), source.tiles, fileBytes);
      if (!file) {
        content.skipped.push(source.skipped);
        continue;
      }
      try {
        const meta = ingest.staged(row, 'Raster');
        const raster = await this.rasters.stage(roomId, actor, { path: file, fileName: 'raster.tif' }, meta, stageId);
        content.mapRaster(String(row.id), raster.id);
      } finally {
        await rm(file, { force: true });
      }
    }
  }

  /** A GeoTIFF on local disk: the row's parts of `raster_files` concatenated, else the tile table `tiles` as a GeoTIFF. */
  private async geoTiffOf(
    gpkg: GeoPackageFile,
    id: string,
    tiles: string | null,
    fileBytes: number,
  ): Promise<string | null> {
    const folder = path.join(this.tmpDir, 'imports');
    await mkdir(folder, { recursive: true });
    const file = path.join(folder, `${newId('raster')}.tif`);
    try {
      if (gpkg.hasTable(T.RASTER_FILES.table)) {
        await pipeline(Readable.from(gpkg.rasterParts(T.RASTER_FILES.table, id, fileBytes)), createWriteStream(file));
        if ((await stat(file)).size > 0) return file;
      }
      if (tiles !== null && gpkg.isTileTable(tiles)) {
        await tilePyramidToTiff(gpkg.path, tiles, file, this.geo.warp);
        return file;
      }
    } catch (error) {
      await rm(file, { force: true });
      throw error;
    }
    await rm(file, { force: true });
    return null;
  }
}

export type { ImportCounts };
