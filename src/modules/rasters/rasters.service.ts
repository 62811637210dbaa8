import { createHash } from 'node:crypto';
import { actorOf, type Caller } from '../../auth/access.js';
import type { RoomRow } from '../../db/tables.js';
import { badRequest, emptyUpdate, notFound } from '../../errors.js';
import { COLORMAP_NAMES, colormapStops } from '../../geo/raster/colormaps.js';
import { applyDisplay, resolveDisplay, type RasterDisplay, type RasterFacts } from '../../geo/raster/display.js';
import type { RasterPoints } from '../../geo-engine/raster-point.js';
import type { TileableSource } from '../../geo-engine/raster-reader.js';
import type { RasterTiles } from '../../geo-engine/raster-tiles.js';
import { isValidTile } from '../../geo/tile-math.js';
import type { TtlCache } from '../../infra/ttl-cache.js';
import { displayProblems } from './raster-display.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { WritePath } from '../history/write-path.js';
import { presentRasterLayer, rasterDisplayOf, rasterFactsOf } from './rasters.presenter.js';
import type { RasterRow, RastersRepository } from './rasters.repository.js';

/** Named by every tile's ETag: changes when the renderer draws the same display differently (2: colours bled past the edges). */
const RASTER_RENDERING = 2;

/** A rendered tile, or `notModified` when the caller's copy (If-None-Match) is current. */
export type TileAnswer =
  | { etag: string; notModified: true }
  | { etag: string; notModified: false; png: Buffer; empty: boolean };

/** What the display rules need of a raster row's facts. */
const factsOf = (row: RasterRow): RasterFacts => rasterFactsOf(row);

export interface RastersServiceParts {
  rasters: RastersRepository;
  files: StoredFiles;
  writePath: WritePath;
  tiles: RasterTiles;
  /** Point queries through GDAL, a few at a time. */
  points: RasterPoints;
  /** Answers of point queries, by source file, display nodata and point. */
  pointAnswers: TtlCache<(number | null)[]>;
}

/**
 * Raster layers: the list, the display PATCH (every key checked against the raster, through
 * the write path: history and live `rasterLayer.updated`), rendered tiles with an ETag that
 * changes with the display, the point query, and the colormap list. Uploads are ingested by
 * modules/ingest with raster-ingest.ts; deletion is the layers' (DELETE /api/layers/:layerId).
 */
export class RastersService {
  private readonly rasters: RastersRepository;
  private readonly files: StoredFiles;
  private readonly writePath: WritePath;
  private readonly tiles: RasterTiles;
  private readonly points: RasterPoints;
  private readonly pointAnswers: TtlCache<(number | null)[]>;

  constructor(parts: RastersServiceParts) {
    ({
      rasters: this.rasters,
      files: this.files,
      writePath: this.writePath,
      tiles: this.tiles,
      points: this.points,
      pointAnswers: this.pointAnswers,
    } = parts);
  }

  async list(roomId: string) {
    return { rasterLayers: (await this.rasters.listOfKind(roomId)).map(presentRasterLayer) };
  }

  /**
   * Changes display keys; the others stay. The keys sent are checked first (each problem names
   * `body.<key>`), then the display they make together (vmin below the stored vmax, ...).
   */
  async updateDisplay(room: RoomRow, caller: Caller, layerId: string, patch: RasterDisplay) {
    if (Object.keys(patch).length === 0) throw emptyUpdate();
    const rasterLayer = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const previous = await this.rasters.findOfKind(room.id, layerId, trx);
      if (!previous) throw notFound('Raster layer');
      const facts = factsOf(previous);
      refuseProblems(displayProblems(patch, facts), 'body');
      const display = applyDisplay(rasterDisplayOf(previous), patch, facts);
      refuseProblems(displayProblems(display, facts), 'body');
      const row: RasterRow = { ...previous, display: JSON.stringify(display), updated_at: Date.now() };
      await this.rasters.replace(trx, row);
      const layer = presentRasterLayer(row);
      return {
        result: layer,
        changes: [
          {
            type: 'rasterLayer.updated',
            objectType: 'rasterLayer',
            objectId: layerId,
            changes: { display: patch },
            data: layer,
          },
        ],
      };
    });
    return { success: true, rasterLayer };
  }

  /**
   * The PNG tile z/x/y drawn with the stored display. A tile with nothing to show is the
   * shared transparent tile (`empty`). The ETag names the tileable file and the display, so
   * it changes exactly when the picture can.
   */
  async tile(
    roomId: string,
    layerId: string,
    tile: { z: number; x: number; y: number },
    ifNoneMatch?: string,
  ): Promise<TileAnswer> {
    const { z, x, y } = tile;
    if (!isValidTile(z, x, y)) throw badRequest(`There is no tile ${z}/${x}/${y}: x and y must be below 2^z`);
    const row = await this.raster(roomId, layerId);
    const etag = `"${createHash('sha256').update(`${row.file_key}|${row.display}|${RASTER_RENDERING}`).digest('base64url').slice(0, 22)}"`;
    if (ifNoneMatch && matches(ifNoneMatch, etag)) return { etag, notModified: true };
    const display = resolveDisplay(rasterDisplayOf(row), factsOf(row));
    const png = await this.tiles.renderTile(this.tileable(row), z, x, y, display);
    return { etag, notModified: false, png: png ?? (await this.tiles.transparentTile()), empty: png === null };
  }

  /**
   * Every band's value at a longitude/latitude: null at nodata (the file's or the display's)
   * and outside. Read from the uploaded GeoTIFF in its own CRS (what gdallocationinfo answers),
   * not from the warped tileable copy, whose pixels can hold a neighbour's value.
   */
  async point(roomId: string, layerId: string, lon: number, lat: number) {
    const row = await this.raster(roomId, layerId);
    const facts = rasterFactsOf(row);
    const source = {
      bands: facts.bands,
      hasAlpha: facts.hasAlpha ?? false,
      nodata: facts.nodata,
      sourceDataType: facts.sourceDataType ?? facts.dataType,
      crsAssumed: facts.crsAssumed ?? false,
    };
    const hidden = rasterDisplayOf(row).nodata ?? null;
    const values = await this.pointAnswers.get(`${facts.sourceKey}|${hidden}|${lon}|${lat}`, () =>
      this.files.readWithGdal(facts.sourceKey, 'Raster layer', ({ path, env }) =>
        this.points.valuesAt(path, lon, lat, source, hidden, env),
      ),
    );
    return { lon, lat, values };
  }

  /** Every colormap name, each reversible, with stops for a legend. */
  colormaps() {
    return {
      colormaps: COLORMAP_NAMES.map((name) => ({ name, reversedName: `${name}_r`, stops: colormapStops(name, 9)! })),
    };
  }

  /** The raster's tileable file, read by byte ranges from the blob store (never the whole file). */
  private tileable(row: RasterRow): TileableSource {
    return { key: row.file_key!, read: this.files.rangeReader(row.file_key!, 'Raster layer') };
  }

  /** A raster layer of the room, or 404. */
  private async raster(roomId: string, layerId: string): Promise<RasterRow> {
    const row = await this.rasters.findOfKind(roomId, layerId);
    if (!row?.file_key) throw notFound('Raster layer');
    return row;
  }
}

/** 400 naming every problem's field under `prefix` (`body.band`, `display.colormap`). */
export function refuseProblems(problems: { field: string; message: string }[], prefix: string): void {
  if (problems.length === 0) return;
  // A problem of the whole object (not an object at all) names the prefix itself.
  const details = problems.map((p) => ({
    field: p.field === 'display' ? prefix : `${prefix}.${p.field}`,
    message: p.message,
  }));
  throw badRequest(`${details[0]!.field}: ${details[0]!.message}`, details);
}

/** Whether an If-None-Match header names the ETag (a list, weak forms, or `*`). */
function matches(header: string, etag: string): boolean {
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}
