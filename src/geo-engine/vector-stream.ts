import { PassThrough } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { GeoLimits } from '../config.js';
import { GdalError, streamGdal } from './gdal-process.js';
import { readGeoJsonTable, readsDirectly } from './geojson-table.js';
import { CoordinateError, summarizeGeometry, type AnyGeometry } from '../geo/feature-summary.js';
import type { Bbox } from '../geo/tile-math.js';
import { VectorRejected } from '../geo/vector/errors.js';
import { scrubReason, type VectorTable } from '../geo/vector/tables.js';

/**
 * Reads one feature table as WGS84 GeoJSON features: `ogr2ogr -f GeoJSONSeq` writes them to
 * its stdout (reprojected with the datum transformation PROJ chooses), one per line, and they
 * are parsed and checked here in batches. GDAL's output is read ahead into a bounded buffer,
 * so GDAL keeps working while the consumer writes a batch; when the buffer is full GDAL waits
 * (memory stays bounded). A GeoPackage or shapefile can be read by several ogr2ogr processes
 * at once, each on a range of FIDs (writing GeoJSON is most of the work, and it is GDAL's).
 * A GeoJSON file in longitude/latitude needs no conversion: its features are parsed from the
 * file itself (geojson-table.ts). Stopping the loop, or aborting the signal, kills GDAL.
 */
export interface StreamedFeature {
  /**
   * Stable and unique within the table, a positive integer: a GeoPackage's fid, a shapefile's
   * record number (from 1), else the position in the file (a CSV's data row). A GeoJSON
   * feature's own `id` is kept as the property `id` unless the properties have one.
   */
  id: number;
  geometry: AnyGeometry;
  properties: Record<string, unknown>;
  bbox: Bbox;
  /** KIND_* flags of feature-summary.ts. */
  kinds: number;
}

export interface ReadOptions {
  signal?: AbortSignal;
  /** Features per batch (default 1,000). */
  batchSize?: number;
  /** Bytes of GDAL output read ahead of the consumer, per process (default 8 MiB). */
  readAheadBytes?: number;
  /** ogr2ogr processes reading FID ranges in parallel, where the table allows it (default 1). */
  parts?: number;
}

/** Counters the reader keeps while it runs. */
export interface ReadStats {
  /** Features yielded. */
  features: number;
  /** Features without a geometry, left out (a CSV row without coordinates is a refusal instead). */
  skippedWithoutGeometry: number;
  /** Bytes of GeoJSON GDAL has written so far (read of the file, for a GeoJSON read without GDAL). */
  bytes: number;
}

export function newStats(): ReadStats {
  return { features: 0, skippedWithoutGeometry: 0, bytes: 0 };
}

/** The ogr2ogr arguments that write a table (or its features with FIDs in `fids`) as GeoJSON lines in WGS84 to stdout. */
export function geoJsonSeqArguments(table: VectorTable, fids?: [number, number]): string[] {
  const { source } = table;
  const args = [
    '-f',
    'GeoJSONSeq',
    '/vsistdout/',
    source.gdalPath,
    table.name,
    ...source.openOptions.flatMap((option) => ['-oo', option]),
    ...(source.assignedCrs
      ? ['-s_srs', source.assignedCrs, '-t_srs', 'EPSG:4326']
      : table.crsAssumed
        ? ['-a_srs', 'EPSG:4326']
        : ['-t_srs', 'EPSG:4326']),
    ...(hasFids(table) ? ['-preserve_fid'] : []),
    '-lco',
    'COORDINATE_PRECISION=7',
  ];
  if (fids) {
    // A GeoPackage's filter is SQLite SQL on its FID column; a shapefile's is OGR SQL on FID.
    const column = table.fidColumn ? `"${table.fidColumn.replaceAll('"', '""')}"` : 'FID';
    args.push('-where', `${column} >= ${fids[0]} AND ${column} <= ${fids[1]}`);
  }
  return args;
}

/** GeoPackage fids and shapefile record numbers are unique integers; other formats' FIDs are positions. */
const hasFids = (table: VectorTable) => table.source.format === 'geopackage' || table.source.format === 'shapefile';

/** FID ranges splitting the table into `parts` (one range covering all when it cannot be split). */
export function fidRanges(table: VectorTable, parts: number): ([number, number] | undefined)[] {
  const range = table.fidRange;
  if (!range || parts <= 1 || range[1] - range[0] < parts * 1000) return [undefined];
  const size = Math.ceil((range[1] - range[0] + 1) / parts);
  return Array.from({ length: parts }, (_, i): [number, number] => [
    range[0] + i * size,
    Math.min(range[1], range[0] + (i + 1) * size - 1),
  ]);
}

/**
 * The table's features in batches, in no particular order when read in parts. Refusals are
 * VectorRejected `invalid_file` naming the feature (its FID, or for a CSV its row) or GDAL's
 * reason; an abort is a GdalError with failure `aborted`.
 */
export async function* readFeatures(
  table: VectorTable,
  limits: GeoLimits,
  options: ReadOptions = {},
  stats: ReadStats = newStats(),
): AsyncGenerator<StreamedFeature[]> {
  if (readsDirectly(table)) {
    yield* readGeoJsonTable(table, featureChecker(table, stats), limits, options, stats);
    return;
  }
  const readers = fidRanges(table, options.parts ?? 1).map((fids) => readPart(table, fids, limits, options, stats));
  const pending = new Map(readers.map((reader, i) => [i, reader.next().then((result) => ({ i, result }))]));
  try {
    while (pending.size > 0) {
      const { i, result } = await Promise.race(pending.values());
      if (result.done) {
        pending.delete(i);
        continue;
      }
      pending.set(
        i,
        readers[i]!.next().then((next) => ({ i, result: next })),
      );
      yield result.value;
    }
  } finally {
    // Stops the other processes when one failed or the consumer stopped.
    await Promise.allSettled(readers.map((reader) => reader.return(undefined)));
  }
}

async function* readPart(
  table: VectorTable,
  fids: [number, number] | undefined,
  limits: GeoLimits,
  options: ReadOptions,
  stats: ReadStats,
): AsyncGenerator<StreamedFeature[]> {
  const batchSize = options.batchSize ?? 1000;
  const run = streamGdal('ogr2ogr', geoJsonSeqArguments(table, fids), { ...limits.job, signal: options.signal });
  const readAhead = new PassThrough({ highWaterMark: options.readAheadBytes ?? 8 * 1024 * 1024 });
  run.stdout.pipe(readAhead);
  const failed = run.done.then(
    () => null,
    (error: unknown) => error,
  );
  const decoder = new StringDecoder('utf8');
  const parse = lineParser(table, stats);
  let rest = '';
  let batch: StreamedFeature[] = [];
  let finished = false;
  try {
    for await (const chunk of readAhead) {
      stats.bytes += (chunk as Buffer).length;
      const text = rest + decoder.write(chunk as Buffer);
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        const feature = parse(text.slice(start, end));
        start = end + 1;
        if (!feature) continue;
        batch.push(feature);
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
      rest = text.slice(start);
      // One feature's GeoJSON may be at most this long: a bigger one would cost gigabytes once parsed.
      if (rest.length > limits.maxFeatureChars) {
        throw new VectorRejected(
          'invalid_file',
          `${table.label}: a feature after feature ${stats.features} is larger than ${limits.maxFeatureChars / 2 ** 20} MB of GeoJSON`,
          { table: table.label },
        );
      }
    }
    const error = await failed;
    if (error) throw refusalOf(error, table);
    const last = parse(rest + decoder.end());
    if (last) batch.push(last);
    if (batch.length > 0) yield batch;
    finished = true;
  } finally {
    if (!finished) run.kill();
    await failed;
  }
}

/** Parses one line of GeoJSONSeq into a checked feature (null for a blank line or a feature left out). */
function lineParser(table: VectorTable, stats: ReadStats): (line: string) => StreamedFeature | null {
  const check = featureChecker(table, stats);
  let position = 0;
  return (line) => {
    if (line.length === 0 || line === '\r') return null;
    position += 1;
    let parsed: ParsedFeature;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new VectorRejected(
        'invalid_file',
        `${table.label}, feature ${position} (in reading order): its coordinates or values cannot be written as JSON`,
        { table: table.label, feature: position },
      );
    }
    return check(parsed, position);
  };
}

/** A GeoJSON feature as parsed, before it is checked. */
export type ParsedFeature = {
  id?: unknown;
  geometry?: AnyGeometry | null;
  properties?: Record<string, unknown> | null;
};

/**
 * Checks a parsed feature, the `position`th of the table in reading order: its id (see
 * StreamedFeature), its geometry's coordinates and summary; null for a feature without a
 * geometry, which is left out (a CSV row without coordinates is a refusal).
 */
export function featureChecker(
  table: VectorTable,
  stats: ReadStats,
): (parsed: ParsedFeature, position: number) => StreamedFeature | null {
  const isCsv = table.source.format === 'csv';
  const format = table.source.format;
  const idOf = (parsed: ParsedFeature, position: number): number => {
    const fid = parsed.id;
    if (format === 'geopackage' && Number.isSafeInteger(fid) && (fid as number) >= 0) return fid as number;
    if (format === 'shapefile' && Number.isSafeInteger(fid)) return (fid as number) + 1;
    if (format === 'geojson' && fid !== undefined && fid !== null) {
      parsed.properties ??= {};
      if (!('id' in parsed.properties)) parsed.properties.id = fid;
    }
    return position;
  };
  return (parsed, position) => {
    const id = idOf(parsed, position);
    // A CSV's FIDs are its data rows (1 for the row after the header).
    const where = isCsv ? `row ${id}` : `feature ${id}`;
    const details = { table: table.label, [isCsv ? 'row' : 'feature']: id };
    let summary;
    try {
      summary = summarizeGeometry(parsed.geometry);
    } catch (error) {
      if (!(error instanceof CoordinateError)) throw error;
      throw new VectorRejected('invalid_file', `${table.label}, ${where}: ${error.message}`, details);
    }
    if (!summary) {
      if (isCsv) throw new VectorRejected('invalid_file', `${table.label}, ${where}: no valid coordinates`, details);
      stats.skippedWithoutGeometry += 1;
      return null;
    }
    stats.features += 1;
    return {
      id,
      geometry: parsed.geometry!,
      properties: parsed.properties ?? {},
      bbox: summary.bbox,
      kinds: summary.kinds,
    };
  };
}

function refusalOf(error: unknown, table: VectorTable): unknown {
  if (!(error instanceof GdalError) || error.failure === 'aborted' || error.failure === 'missing') return error;
  return new VectorRejected(
    'invalid_file',
    `GDAL could not read ${table.source.label}: ${scrubReason(error.reason, table.source)}`,
    { table: table.label },
  );
}
