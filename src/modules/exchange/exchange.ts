import type { Actor } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { Tables } from '../../db/tables.js';
import type { GpkgColumn, GpkgColumnType, GpkgGeometryType } from '../../geo-engine/gpkg-writer.js';
import type { LayerField } from '../../geo/feature-fields.js';
import type { GeoJsonGeometry } from '../../geo/gpkg/wkb.js';
import type { ImportCounts } from './exchange.schemas.js';

/**
 * What a domain puts into a room export and how it takes it back: one `Exchange` per table
 * of the file, declared in the domain's own folder (`markers/markers.exchange.ts`, built with
 * file-tables.ts) and listed by its descriptor. The export (exports/room-export.ts), the import
 * (exports/room-import.ts, exports/restored-content.ts) and the clone (exports/room-clones.ts)
 * each read their part of it and know no domain's columns.
 */

export interface ExportColumn extends GpkgColumn {
  /** Epoch milliseconds in the database, ISO 8601 text in the file. */
  time?: boolean;
}

/** How a column is kept in the file: a GeoPackage type, or `time` (DATETIME from epoch milliseconds). */
export type ColumnKind = Exclude<GpkgColumnType, 'DATETIME'> | 'time';

/** A row as the file holds it (times back to epoch milliseconds, JSON as text or as GDAL reads it). */
export type FileRow = Record<string, unknown>;

/** What a restore step is given besides the row: the feature's geometry, the row's file, its place among the rows kept. */
export interface RestoreInput {
  geometry: GeoJsonGeometry | null;
  data: Buffer | null;
  /** How many rows of this table were restored before this one (for messages naming the row). */
  index: number;
  /** The file comes from a room of this service (a clone's source), already as an upload stores it. */
  fromRoom?: boolean;
}

/** What restoring a row may use: the target room, the importer, ids already restored, the file store. */
export interface RestoreContext {
  readonly roomId: string;
  readonly actor: Actor;
  /** Counts one restored object; past the import's limit the file is refused. */
  countOne(): void;
  /** The new id (or file key) of an object of `kind` restored before, by its id in the file. */
  newIdOf(kind: string, oldId: unknown): string | undefined;
  /** Records that the object of `kind` known in the file as `oldId` is now `newId`. */
  remember(kind: string, oldId: unknown, newId: string): void;
  /** Stores a restored file in the room (removed again if the import fails). */
  store(file: { key: string; kind: string; contentType: string; data: Buffer; meta?: unknown }): Promise<void>;
}

/**
 * A table of the file as export, import and clone all read it: its name and description, the
 * database table its rows come from and its columns (made by `fileTable`, so none is forgotten).
 */
export interface FileTable {
  /** The table's name in the GeoPackage. */
  table: string;
  description: string;
  /** The database table the rows come from. */
  source: keyof Tables;
  /** The file's columns, in order. */
  columns: ExportColumn[];
  /** Columns of `source` the file leaves out (room, internal keys, the geometry's own columns). */
  omitted: readonly string[];
  /** Columns only the file has (a BLOB `data`, a layer's `table_name`). */
  fileOnly: readonly string[];
  /** A feature table: its geometry type (the export gives each row's geometry). */
  geometryType?: GpkgGeometryType;
  /**
   * A feature table of rows of several geometry types, written as one table per type (QGIS
   * shows a table's features of one geometry type only): each row goes to the table holding its
   * type. The import reads them all, and `table` too (as earlier exports wrote it).
   */
  geometryTables?: GeometryTable[];
  /** The BLOB column `data` holds a row's stored file; the import finds it by this column. */
  blobLookup?: string;
}

/** One table of a feature table written per geometry type: its name, its GeoPackage type, the GeoJSON type of its rows. */
export interface GeometryTable {
  table: string;
  geometryType: GpkgGeometryType;
  holds: GeoJsonGeometry['type'];
}

/** The tables of the file an exchange writes: its own, or one per geometry type. */
export const writtenTables = (exchange: Pick<FileTable, 'table' | 'geometryTables'>): string[] =>
  exchange.geometryTables ? exchange.geometryTables.map((t) => t.table) : [exchange.table];

/** What the export reads of a table (exports/room-export.ts). */
export interface TableExport<Row> {
  /** The room's rows, in the file's order. */
  rows(roomId: string): Promise<Row[]>;
  /** How many rows the room has, for the estimate of an export's size (tables of many small rows). */
  count?(roomId: string): Promise<number>;
  /** A feature table's geometry of a row. */
  geometry?(row: Row): GeoJsonGeometry | null;
  /** The key of the stored file a row carries in `data`. */
  fileKey?(row: Row): string;
  /**
   * The row as the export writes it, given the keys of the stored files the export holds
   * (`held`): a file it names that is not held (deleted while the export ran) is named no more.
   */
  filesGone?(row: Row, held: ReadonlySet<string>): Row;
  /** The parts of the file a row brings of its own (the layers table, by each row's kind; see `LayerFiles`). */
  parts?(row: Row, include: IncludedParts): LayerPart[];
}

/** How the import restores a table's rows (exports/room-import.ts, restored-content.ts). */
export interface TableRestore<Row> {
  /** Tables of the file whose ids this table's rows refer to: they are restored first. */
  after: string[];
  /** Which count of the import's answer a restored row adds to. */
  counted: keyof ImportCounts;
  /** The row to insert (null: left out). Rows without `insert` are kept by `add` itself (stored files). */
  add(row: FileRow, context: RestoreContext, input: RestoreInput): Promise<Row | null> | Row | null;
  /** Inserts restored rows (at most 200 at a time) in the import's transaction. */
  insert?(trx: Db, rows: Row[]): Promise<void>;
  /** Settles all restored rows against the room before they are inserted (slides go after the room's own). */
  arrange?(trx: Db, rows: Row[], roomId: string): Promise<void>;
}

/**
 * A table whose rows an ingest restores instead of `restore` (vector layers and rasters, staged
 * by the import), by each row's kind.
 */
export interface TableIngest<Staged> {
  /**
   * The settings the ingest is given for a row of the file, read the way the domain keeps them
   * (a name, else `fallbackName`; a style still valid, else the default).
   */
  staged(row: FileRow, fallbackName: string): Staged;
  /** What a row of the file is restored from (null: nothing, the row is left out). */
  source(row: FileRow): LayerSource | null;
}

/**
 * What a domain puts into a room export for one table of the file and how it takes it back:
 * the table, what the export reads, and what the import (`restore`, or an `ingest`) and the
 * clone (`clone`) do with it.
 */
export interface Exchange<Row = unknown, Staged = unknown> extends FileTable {
  export: TableExport<Row>;
  restore?: TableRestore<Row>;
  ingest?: TableIngest<Staged>;
  clone?: CloneExchange<Row>;
}

/** What the export reads of an exchange: the table and its rows. */
export type ExportedTable<Row = unknown> = FileTable & Pick<Exchange<Row>, 'export'>;

/** What the import reads of an exchange: the table and how its rows come back. */
export type ImportedTable<Staged = unknown> = FileTable & Pick<Exchange<unknown, Staged>, 'restore' | 'ingest'>;

/**
 * A clone's manifest lists the room's objects as the API shows them (`manifest`). Those the
 * clone restores like an import (`restoredFrom`) come back as the rows an export would hold;
 * bulky data is read from the source room only: an object naming a source row (`sourceId`) is
 * copied with that row's stored file, and the stored files an object uses (`files`, e.g. a
 * marker's photo) are restored through the `stored_files` exchange first. Vector layers and
 * rasters are listed here but copied by the clone through their ingest.
 */
export interface CloneExchange<Row> {
  /** The manifest's lists of the room's rows, by the manifest's field (`{ markers: [...] }`). */
  manifest(rows: Row[]): Record<string, unknown[]>;
  restoredFrom?: {
    /** The manifest's field holding the objects. */
    field: string;
    /** The row of the source room the object names, whose stored file is copied with it. */
    sourceId?(item: unknown): string;
    /** Keys of the source room's stored files the object uses. */
    files?(item: unknown): (string | null | undefined)[];
    /** The object as the row the file would hold, with its geometry (null: not copied). */
    fileRow(item: unknown, source: Row | undefined): { row: FileRow; geometry?: GeoJsonGeometry } | null;
  };
}

/**
 * One kind of the rows of a table two domains share (`layers`: vector layers and rasters):
 * what that domain adds to the table's exchange, so that neither domain imports the other.
 */
export interface KindExchange<Row, Staged = unknown> {
  /** The rows of this kind (their `kind` column). */
  kind: string;
  /** The manifest's lists of the room's rows of this kind. */
  manifest(rows: Row[]): Record<string, unknown[]>;
  /** The settings the ingest restores a row of this kind with (see `TableIngest.staged`). */
  staged(row: FileRow, fallbackName: string): Staged;
  /** The file parts a row of this kind brings and is restored from (see `LayerFiles`). */
  files: LayerFiles<Row>;
}

/** Which of a room's bulky parts an export holds: the rasters' original GeoTIFFs, their tile pyramids. */
export interface IncludedParts {
  tiffs: boolean;
  tiles: boolean;
}

/**
 * A part of the file beyond the layer's row, described for the export to write: `features`
 * (a feature table, its rows read from the layer's stored features by the export worker) and
 * `tiles` (a stored raster as a tile pyramid) get a table named after `name` that the row's
 * `column` names; `file` is a stored file kept in parts of `raster_files` under the row's id.
 */
export type LayerPart =
  | {
      type: 'features';
      column: string;
      name: string;
      description: string;
      /** The layer's stored features (their feature table's number). */
      key: number;
      featureCount: number;
      /** The highest row of its feature table (rows 1 to it hold the features, with gaps where features were deleted). */
      lastRow: number;
      geometryType: GpkgGeometryType;
      /** The layer's fields (null: read off the features). */
      fields: LayerField[] | null;
    }
  | { type: 'tiles'; column: string; name: string; fileKey: string }
  | { type: 'file'; fileKey: string };

/**
 * Where a row of the file is restored from, read by the import and handed to the kind's
 * ingest step: `features`, the file's feature table of that name (the vector ingest stages
 * it); `geoTiff`, a GeoTIFF made from the row's parts of `raster_files`, else from the tile
 * table `tiles` (the raster ingest stages it), else the row is left out as `skipped` (the
 * entry of the import's answer naming it and why).
 */
export type LayerSource =
  | { type: 'features'; table: string }
  | { type: 'geoTiff'; tiles: string | null; skipped: Record<string, string> };

/** A layer kind's file parts (see `KindExchange.files`): what an export writes for a row, what an import restores it from. */
export interface LayerFiles<Row> {
  /** The parts a row of this kind adds to an export holding `include`. */
  exported(row: Row, include: IncludedParts): LayerPart[];
  /** What a row of the file is restored from (null: nothing, the row is left out). */
  source(row: FileRow): LayerSource | null;
}

/** What does not match between a table's database columns and its exchange: empty when each column is accounted for once. */
export function columnDrift(exchange: FileTable, databaseColumns: string[]): string[] {
  const kept = exchange.columns.map((c) => c.name).filter((name) => !exchange.fileOnly.includes(name));
  const declared = [...kept, ...exchange.omitted];
  return [
    ...databaseColumns
      .filter((name) => !declared.includes(name))
      .map((name) => `${exchange.source}.${name} is neither exported nor omitted by ${exchange.table}`),
    ...declared
      .filter((name) => !databaseColumns.includes(name))
      .map((name) => `${exchange.table} names ${name}, which ${exchange.source} does not have`),
    ...declared
      .filter((name, i) => declared.indexOf(name) !== i)
      .map((name) => `${exchange.table} names ${name} twice`),
  ];
}

/** The exchanges in an order where each comes after the tables it refers to (else in the listed order). */
export function restoreOrder<E extends Pick<Exchange, 'table' | 'restore'>>(exchanges: E[]): E[] {
  const restorable = exchanges.filter((e) => e.restore);
  const tables = new Set(restorable.map((e) => e.table));
  const done = new Set<string>();
  const order: E[] = [];
  while (order.length < restorable.length) {
    const next = restorable.find(
      (e) => !done.has(e.table) && e.restore!.after.every((t) => done.has(t) || !tables.has(t)),
    );
    if (!next) throw new Error('The exchanges refer to each other in a cycle');
    order.push(next);
    done.add(next.table);
  }
  return order;
}
