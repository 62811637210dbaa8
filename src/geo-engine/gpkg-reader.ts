import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import SQLite from 'better-sqlite3';
import { AppError, invalidFile } from '../errors.js';
import type { GeoLimits } from '../config.js';
import type { GeoJsonGeometry } from '../geo/gpkg/wkb.js';
import { reasonWithoutPath } from '../geo/raster/raster-info.js';
import { GdalError, streamGdal } from './gdal-process.js';
import type { GpkgColumn } from './gpkg-writer.js';

/**
 * What the reader knows of the export it reads, declared by modules/exports: the table that
 * says what the file is, the format and version it must name there, the most rows one of its
 * small tables may hold, and how a column's value in the file becomes a database value.
 */
export interface GpkgReadLayout<C extends GpkgColumn> {
  metaTable: string;
  format: string;
  version: string;
  maxRows: number;
  rowValue(column: C, value: unknown): unknown;
}

/**
 * An uploaded GeoPackage, read for an import. It is hostile until proven otherwise: it must
 * start like an SQLite database and hold `gpkg_contents`; it is opened read-only with the
 * schema untrusted (no functions from views or triggers run); a damaged file is refused
 * (400 `invalid_file`) when a read finds the damage, before anything is published.
 */
export class GeoPackageFile<C extends GpkgColumn = GpkgColumn> {
  private constructor(
    readonly path: string,
    private readonly db: SQLite.Database,
    private readonly layout: GpkgReadLayout<C>,
  ) {}

  static async open<C extends GpkgColumn>(path: string, layout: GpkgReadLayout<C>): Promise<GeoPackageFile<C>> {
    const handle = await open(path, 'r');
    const header = Buffer.alloc(16);
    try {
      await handle.read(header, 0, 16, 0);
    } finally {
      await handle.close();
    }
    if (header.toString('latin1') !== 'SQLite format 3\0') throw notGeoPackage('its content is not a database');
    let db: SQLite.Database;
    try {
      db = new SQLite(path, { readonly: true, fileMustExist: true });
      db.pragma('trusted_schema = OFF');
      const contents = db
        .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'gpkg_contents'")
        .get() as { n: number };
      if (contents.n === 0) {
        db.close();
        throw notGeoPackage('it has no gpkg_contents table');
      }
      const computed = computedTables(db);
      if (computed) {
        db.close();
        throw notGeoPackage(`its table ${computed.slice(0, 100)} has computed or virtual columns`);
      }
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw notGeoPackage(`it cannot be read (${(error as Error).message})`);
    }
    return new GeoPackageFile(path, db, layout);
  }

  close(): void {
    this.db.close();
  }

  /** True when the file is a Maproom room export this version reads. */
  isRoomExport(): boolean {
    if (!this.hasTable(this.layout.metaTable)) return false;
    const meta = this.meta();
    return meta.get('format') === this.layout.format && meta.get('version') === this.layout.version;
  }

  meta(): Map<string, string> {
    return new Map(
      this.read(
        () =>
          this.db.prepare(`SELECT key, value FROM "${this.layout.metaTable}"`).all() as {
            key: string;
            value: string;
          }[],
      ).map((r) => [r.key, r.value]),
    );
  }

  hasTable(name: string): boolean {
    return Boolean(this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name));
  }

  /** True when `name` is a tile pyramid the file's gpkg_contents lists as such. */
  isTileTable(name: string): boolean {
    return Boolean(
      this.read(() =>
        this.db.prepare("SELECT 1 FROM gpkg_contents WHERE table_name = ? AND data_type = 'tiles'").get(name),
      ),
    );
  }

  /** An attribute table of the export as database rows (times back to epoch milliseconds); an absent table has none. */
  rows(table: string, columns: C[]): Record<string, unknown>[] {
    if (!this.hasTable(table)) return [];
    const names = columns.filter((c) => c.type !== 'BLOB').map((c) => `"${c.name}"`);
    const lengths = names.map((n) => `coalesce(length(${n}), 0)`);
    const size = this.read(
      () =>
        this.db
          .prepare(
            `SELECT count(*) AS rows, max(max(${lengths.join(', ')}, 0)) AS longest, sum(${lengths.join(' + ')}) AS total FROM "${table}"`,
          )
          .get() as { rows: number; longest: number | null; total: number | null },
    );
    if ((size.longest ?? 0) > MAX_TEXT_CHARS)
      throw notGeoPackage(`its table ${table} holds a value longer than ${MAX_TEXT_CHARS} characters`);
    if (size.rows > this.layout.maxRows || (size.total ?? 0) > MAX_TABLE_CHARS)
      throw notGeoPackage(
        `its table ${table} holds more than one import restores (${this.layout.maxRows} rows, ${MAX_TABLE_CHARS / 2 ** 20} M characters)`,
      );
    return this.read(() => {
      const raw = this.db.prepare(`SELECT ${names.join(', ')} FROM "${table}" ORDER BY rowid`).all() as Record<
        string,
        unknown
      >[];
      return raw.map((row) =>
        Object.fromEntries(
          columns.filter((c) => c.type !== 'BLOB').map((c) => [c.name, this.layout.rowValue(c, row[c.name])]),
        ),
      );
    });
  }

  /** One BLOB, looked up by a key column. */
  blob(table: string, keyColumn: string, key: unknown, extra = ''): Buffer | null {
    const row = this.read(
      () =>
        this.db.prepare(`SELECT data FROM "${table}" WHERE "${keyColumn}" = ?${extra}`).get(key) as
          | { data: unknown }
          | undefined,
    );
    return row && Buffer.isBuffer(row.data) ? row.data : null;
  }

  /**
   * A raster's GeoTIFF parts, in order, one row at a time. They must be numbered 1, 2, 3, ...
   * without gaps or repeats and hold at most `maxBytes` together (no more than the file
   * itself), else the file is refused.
   */
  *rasterParts(table: string, layerId: string, maxBytes: number): Generator<Buffer> {
    const rows = this.read(() =>
      this.db.prepare(`SELECT part, data FROM "${table}" WHERE layer_id = ? ORDER BY part`).iterate(layerId),
    ) as IterableIterator<{ part: unknown; data: unknown }>;
    let expected = 1;
    let bytes = 0;
    for (const { part, data } of rows) {
      if (part !== expected || !Buffer.isBuffer(data))
        throw notGeoPackage(
          `the GeoTIFF parts of raster ${layerId.slice(0, 100)} are not numbered 1, 2, 3, ... with data`,
        );
      bytes += data.length;
      if (bytes > maxBytes)
        throw notGeoPackage(`the GeoTIFF parts of raster ${layerId.slice(0, 100)} are larger than the file`);
      expected += 1;
      yield data;
    }
  }

  /**
   * A feature table's features as GeoJSON (through GDAL, which decodes the geometries), with
   * their columns as properties, one at a time as GDAL writes them: memory stays bounded
   * whatever the table's size, and one feature may be at most `limits.maxFeatureChars` of GeoJSON
   * (ogr2ogr runs under `limits.job`).
   */
  async *features(
    table: string,
    limits: GeoLimits,
  ): AsyncGenerator<{ geometry: GeoJsonGeometry | null; properties: Record<string, unknown> }> {
    if (!this.hasTable(table)) return;
    const run = streamGdal(
      'ogr2ogr',
      ['-f', 'GeoJSONSeq', '/vsistdout/', this.path, table, '-lco', 'RS=NO'],
      limits.job,
    );
    const failed = run.done.then(
      () => null,
      (error: unknown) => error,
    );
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let finished = false;
    try {
      for await (const chunk of run.stdout) {
        const lines = (rest + decoder.write(chunk as Buffer)).split('\n');
        rest = lines.pop()!;
        if (rest.length > limits.maxFeatureChars)
          throw notGeoPackage(
            `a feature of its table ${table} is larger than ${limits.maxFeatureChars / 2 ** 20} MB of GeoJSON`,
          );
        for (const line of lines) if (line.trim()) yield parseFeature(line);
      }
      const error = await failed;
      if (error instanceof GdalError && error.failure !== 'missing' && error.failure !== 'aborted')
        throw notGeoPackage(`GDAL cannot read its table ${table}: ${reasonWithoutPath(error.reason, this.path)}`);
      if (error) throw error;
      rest += decoder.end();
      if (rest.trim()) yield parseFeature(rest);
      finished = true;
    } finally {
      if (!finished) run.kill();
      await failed;
    }
  }

  private read<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw notGeoPackage(`a table cannot be read (${(error as Error).message})`);
    }
  }
}

function parseFeature(line: string): { geometry: GeoJsonGeometry | null; properties: Record<string, unknown> } {
  let feature: { geometry?: GeoJsonGeometry | null; properties?: Record<string, unknown> | null };
  try {
    feature = JSON.parse(line) as typeof feature;
  } catch {
    throw notGeoPackage('GDAL cannot write one of its features as JSON');
  }
  return { geometry: feature.geometry ?? null, properties: feature.properties ?? {} };
}

/** The text one of an export's small tables may hold in all: fixed, a rule of the export file. */
export const MAX_TABLE_CHARS = 256 * 1024 ** 2;

/** The longest text an export's small tables hold (a comment is at most 5,000 characters, a slide's body more); fixed likewise. */
export const MAX_TEXT_CHARS = 1024 * 1024;

/**
 * The first table with a generated column, or a virtual table other than a GeoPackage R*Tree:
 * reading those runs the file's own SQL, which could make values of any size.
 */
function computedTables(db: SQLite.Database): string | null {
  const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all() as {
    name: string;
    sql: string | null;
  }[];
  for (const { name, sql } of tables) {
    if (/^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(sql ?? '')) {
      if (/USING\s+rtree\s*\(/i.test(sql ?? '') && name.startsWith('rtree_')) continue;
      return name;
    }
    const columns = db.prepare('SELECT hidden FROM pragma_table_xinfo(?)').all(name) as { hidden: number }[];
    if (columns.some((c) => c.hidden !== 0)) return name;
  }
  return null;
}

export const notGeoPackage = (why: string) => invalidFile(`The file is not a GeoPackage Maproom can read: ${why}`);
