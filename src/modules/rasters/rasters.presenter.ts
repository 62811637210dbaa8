import type { RasterDisplay } from '../../geo/raster/display.js';
import type { RasterRow } from './rasters.repository.js';
import type { RasterLayer } from './rasters.schemas.js';

const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/**
 * What a raster layer's `raster` column holds (written by its ingest, raster-ingest.ts). The
 * files are counted by the quota as stored files, so the row's `size_bytes` stays 0 and
 * `sizeBytes` here is their total.
 */
export interface RasterFactsColumn {
  width: number;
  height: number;
  bands: number;
  dataType: string;
  /** The file's own nodata value (transparent), or null. */
  nodata: number | null;
  stats: {
    min: number | null;
    max: number | null;
    mean: number | null;
    stddev?: number | null;
    p2?: number | null;
    p98?: number | null;
  }[];
  /** Zooms of the tileable file's full resolution and coarsest overview. */
  minZoom: number;
  maxZoom: number;
  /** The uploaded GeoTIFF, kept as sent (exports with include_tiffs; the point query reads it). */
  sourceKey: string;
  /** The uploaded GeoTIFF's own sample type, whether its last band is alpha, whether its CRS was assumed. */
  sourceDataType?: string;
  hasAlpha?: boolean;
  crsAssumed?: boolean;
  /** Bytes of the uploaded GeoTIFF and of the tileable file together. */
  sizeBytes: number;
}

/** A raster layer's facts, from its `raster` column. */
export const rasterFactsOf = (row: RasterRow): RasterFactsColumn =>
  json<RasterFactsColumn>(row.raster) ?? {
    width: 0,
    height: 0,
    bands: 0,
    dataType: 'unknown',
    nodata: null,
    stats: [],
    minZoom: 0,
    maxZoom: 0,
    sourceKey: '',
    sizeBytes: 0,
  };

/** A raster layer's display settings, from its `display` column. */
export const rasterDisplayOf = (row: RasterRow): RasterDisplay => json<RasterDisplay>(row.display) ?? {};

/** A raster layer as lists and answers show it (decisions: rasters in lists, plus what a map client needs). */
export const presentRasterLayer = (row: RasterRow): RasterLayer => {
  const facts = rasterFactsOf(row);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    display: rasterDisplayOf(row),
    width: facts.width,
    height: facts.height,
    bands: facts.bands,
    dataType: facts.dataType,
    nodata: facts.nodata,
    bbox: json<number[]>(row.bbox),
    sourceCrs: row.source_crs,
    stats: facts.stats.map((s) => ({ min: s.min, max: s.max, mean: s.mean })),
    minZoom: facts.minZoom,
    maxZoom: facts.maxZoom,
    tileUrl: `/api/rooms/${row.room_id}/raster-layers/${row.id}/tiles/{z}/{x}/{y}.png`,
    sizeBytes: facts.sizeBytes,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
};
