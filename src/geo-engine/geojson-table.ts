import { createReadStream } from 'node:fs';
import type { GeoLimits } from '../config.js';
import { fieldTypeOf } from '../geo/feature-fields.js';
import type { AnyGeometry } from '../geo/feature-summary.js';
import { GeoJsonError } from '../geo/geojson-points.js';
import { MembersAfterFeatures, VectorRejected } from '../geo/vector/errors.js';
import type { VectorTable } from '../geo/vector/tables.js';
import { GdalError } from './gdal-process.js';
import { collectionOutside, readFeatureBatches, withoutFeatures } from './geojson-stream.js';
import { geoJsonPositionRefusal } from './vector-inspect.js';
import type { ParsedFeature, ReadOptions, ReadStats, StreamedFeature } from './vector-stream.js';

/** Coordinate reference systems a GeoJSON's coordinates are stored in as they are. */
const LONGITUDE_LATITUDE = new Set(['EPSG:4326', 'OGC:CRS84']);

/**
 * Whether the table's features are read from the file here rather than through ogr2ogr: a
 * GeoJSON file in longitude/latitude that was given no other CRS. GDAL has inspected it already
 * (its fields and CRS, and unless the reader checks them, its extent and that its coordinates
 * are finite), so its features need no conversion, and V8 parses them several times faster
 * than ogr2ogr writes them as GeoJSON lines.
 */
export function readsDirectly(table: VectorTable): boolean {
  return table.source.format === 'geojson' && !table.source.assignedCrs && LONGITUDE_LATITUDE.has(table.sourceCrs);
}

/**
 * The features of a GeoJSON FeatureCollection in batches, each checked by `check` as the
 * features ogr2ogr writes are, with the values of fields GDAL declares as text made text (as
 * GDAL makes them) and coordinates rounded as ogr2ogr rounds them. The file is streamed: one
 * feature may be at most `limits.maxFeatureChars` long.
 */
export async function* readGeoJsonTable(
  table: VectorTable,
  check: (parsed: ParsedFeature, position: number) => StreamedFeature | null,
  limits: GeoLimits,
  options: ReadOptions,
  stats: ReadStats,
): AsyncGenerator<StreamedFeature[]> {
  const batchSize = options.batchSize ?? 1000;
  // Fields not known yet are typed, and their values made text, by the ingest once all are read.
  const asText = (table.fields ?? []).filter((field) => fieldTypeOf(field) === 'string').map((field) => field.name);
  // Chunks under V8's large-object size (128 KiB): their text is young garbage, freed at once, not held
  // until a full collection as 1 MiB chunks were (tens of megabytes of a large file's read).
  const input = createReadStream(table.source.gdalPath, { highWaterMark: 64 * 1024 });
  let position = 0;
  let batch: StreamedFeature[] = [];
  try {
    for await (const parsed of readFeatureBatches(input, featureLimits(limits), (outside) =>
      checkHead(table, outside),
    )) {
      if (options.signal?.aborted) throw new GdalError('Stopped', 'aborted');
      stats.bytes = input.bytesRead;
      for (const feature of parsed as ParsedFeature[]) {
        position += 1;
        if (!feature || typeof feature !== 'object') throw notFeature(table, position);
        if (feature.geometry && typeof feature.geometry === 'object') roundPositions(feature.geometry);
        const checked = checkPositions(table, check, feature, position);
        if (!checked) continue;
        if (asText.length) textValues(checked.properties, asText);
        batch.push(checked);
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  } catch (error) {
    // A refusal of a read decided on the members before the features may be the wrong read's.
    if (!options.signal?.aborted && !(error instanceof MembersAfterFeatures) && (await membersFollow(table)))
      throw membersAfterFeatures(table);
    if (error instanceof GeoJsonError)
      throw new VectorRejected('invalid_file', `${table.label}: ${error.message}`, { table: table.label });
    throw error;
  } finally {
    input.destroy();
  }
}

/** A read decided on the collection's members before its features stops if others follow them. */
function checkHead(table: VectorTable, outside: Record<string, unknown>): void {
  if (table.headMembers && !sameMembers(table.headMembers, outside)) throw membersAfterFeatures(table);
}

/** Whether the file of a read decided on its head has members after its features (false when it is not JSON). */
async function membersFollow(table: VectorTable): Promise<boolean> {
  if (!table.headMembers) return false;
  try {
    const outside = await collectionOutside(createReadStream(table.source.gdalPath, { highWaterMark: 64 * 1024 }));
    return !sameMembers(table.headMembers, outside as Record<string, unknown>);
  } catch {
    return false;
  }
}

const sameMembers = (head: Record<string, unknown>, outside: Record<string, unknown>) =>
  JSON.stringify(withoutFeatures(outside)) === JSON.stringify(head);

const membersAfterFeatures = (table: VectorTable) =>
  new MembersAfterFeatures(`${table.label}: the collection has members after its features`);

/** A layer's feature may be as large as the geo engine allows; the members outside the features as large as one. */
const featureLimits = (limits: GeoLimits) => ({
  maxValues: Number.POSITIVE_INFINITY,
  maxChars: limits.maxFeatureChars,
  maxOutsideChars: limits.maxFeatureChars,
});

/**
 * The checked feature; a position that is not longitude/latitude is refused as the inspection
 * refuses a table GDAL measured (its extent is not measured for such a file: this reader is the
 * one pass over its positions).
 */
function checkPositions(
  table: VectorTable,
  check: (parsed: ParsedFeature, position: number) => StreamedFeature | null,
  feature: ParsedFeature,
  position: number,
): StreamedFeature | null {
  try {
    return check(feature, position);
  } catch (error) {
    const problem = error instanceof VectorRejected && feature.geometry ? positionProblem(feature.geometry) : null;
    if (problem) throw geoJsonPositionRefusal(table.label, position, problem);
    throw error;
  }
}

/** What is wrong with the geometry's positions, the first that shows it: not finite, projected metres or out of range. */
function positionProblem(geometry: AnyGeometry): 'not_finite' | 'projected' | 'out_of_range' | null {
  let found: 'not_finite' | 'projected' | 'out_of_range' | null = null;
  const visit = (values: unknown): void => {
    if (found || !Array.isArray(values)) return;
    if (typeof values[0] !== 'number') return values.forEach(visit);
    const [lon, lat] = values as number[];
    if (!Number.isFinite(lon) || !Number.isFinite(lat)) found = 'not_finite';
    else if (Math.max(Math.abs(lon!), Math.abs(lat!)) > 1000) found = 'projected';
    else if (Math.abs(lon!) > 180 || Math.abs(lat!) > 90) found = 'out_of_range';
  };
  if (Array.isArray(geometry.geometries))
    for (const part of geometry.geometries) if (part && !found) found = positionProblem(part);
  visit(geometry.coordinates);
  return found;
}

/** Decimals of a coordinate kept, as ogr2ogr keeps them (COORDINATE_PRECISION=7: about 1 cm). */
const SCALE = 1e7;

/** Rounds every coordinate of the geometry in place to SCALE, as ogr2ogr writes them. */
function roundPositions(geometry: AnyGeometry): void {
  if (Array.isArray(geometry.geometries)) for (const part of geometry.geometries) if (part) roundPositions(part);
  if (Array.isArray(geometry.coordinates)) roundNested(geometry.coordinates);
}

function roundNested(values: unknown[]): void {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value === 'number') values[i] = Math.round(value * SCALE) / SCALE;
    else if (Array.isArray(value)) roundNested(value);
  }
}

/** The properties' JSON text with the numbers and booleans of the fields named made text (see textValues). */
export function withTextValues(properties: string, names: string[]): string {
  const parsed = JSON.parse(properties) as Record<string, unknown>;
  textValues(parsed, names);
  return JSON.stringify(parsed);
}

/** Numbers and booleans of the fields named made text, as GDAL writes a text field's values (objects and lists stay). */
function textValues(properties: Record<string, unknown>, names: string[]): void {
  for (const name of names) {
    const value = properties[name];
    if (typeof value === 'number' || typeof value === 'boolean') properties[name] = String(value);
  }
}

function notFeature(table: VectorTable, position: number): VectorRejected {
  return new VectorRejected('invalid_file', `${table.label}, feature ${position}: it is not a JSON object`, {
    table: table.label,
    feature: position,
  });
}
