import type { Actor } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { Tables } from '../../db/tables.js';
import type { GpkgColumn, GpkgColumnType, GpkgGeometryType } from '../../geo-engine/gpkg-writer.js';
import type { LayerField } from '../../geo/feature-fields.js';
import type { GeoJsonGeometry } from '../../geo/gpkg/wkb.js';
import { newId } from '../../ids.js';
import type { ImportCounts } from './exchange.schemas.js';
import { textOr, when } from './restore-values.js';

/**
 * What a domain puts into a room export and how it takes it back: one `Exchange` per table
 * of the file, declared in the domain's own folder (`markers/markers.exchange.ts`) and listed
 * once in app.ts. The export (exports/room-export.ts) and the import (exports/room-import.ts,
 * exports/restored-content.ts) walk that list and know no domain's columns.
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

export interface Exchange<Row = unknown, Staged = unknown> {
  /** The table's name in the GeoPackage. */
  table: string;
  description: string;
  /** The database table the rows come from. */
  source: keyof Tables;
  /** The file's columns, in order (made by `exchangeColumns`, so none is forgotten). */
  columns: ExportColumn[];
  /** Columns of `source` the file leaves out (room, internal keys, the geometry's own columns). */
  omitted: readonly string[];
  /** Columns only the file has (a BLOB `data`, a layer's `table_name`). */
  fileOnly: readonly string[];
  /** A feature table: its geometry type and each row's geometry. */
  geometry?: { type: GpkgGeometryType; of(row: Row): GeoJsonGeometry | null };
  /** The BLOB column `data`: the stored file of a row (export), and the file's column finding it (import). */
  blob?: { key(row: Row): string; lookup: string };
  /**
   * The row as the export writes it, given the keys of the stored files the export holds
   * (`held`): a file it names that is not held (deleted while the export ran) is named no more.
   */
  filesGone?(row: Row, held: ReadonlySet<string>): Row;
  /** The room's rows, in the file's order. */
  rows(roomId: string): Promise<Row[]>;
  /** How many rows the room has, for the estimate of an export's size (tables of many small rows). */
  count?(roomId: string): Promise<number>;
  /**
   * A table whose rows an ingest restores instead of `restore` (vector layers and rasters,
   * staged by the import): the settings the ingest is given for a row of the file, read the
   * way the domain keeps them (a name, else `fallbackName`; a style still valid, else the default).
   */
  staged?(row: FileRow, fallbackName: string): Staged;
  /** A table whose rows bring parts of the file of their own (the layers table; see `LayerFiles`), by each row's kind. */
  files?: LayerFiles<Row>;
  /** Clones (exports/room-clones.ts): how the table's objects travel in a manifest and come back from one. */
  clone?: CloneExchange<Row>;
  restore?: {
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
  };
}

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
  /** The settings the ingest restores a row of this kind with (see `Exchange.staged`). */
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

/**
 * A layer kind's part of the layers table (see `KindExchange`): every kind is listed in a
 * manifest by id, name and description and restored with the file's name (else `fallbackName`)
 * and description; the kind states only its manifest field and what it adds to both (`shown`:
 * a vector layer's style, a raster's display; `restored`: the same read back from the file).
 */
export function layerKind<Row extends { id: string; name: string; description: string | null }, Own>(spec: {
  kind: string;
  field: string;
  shown(row: Row): Record<string, unknown>;
  restored(row: FileRow): Own;
  files: LayerFiles<Row>;
}): KindExchange<Row, { layerName: string; description: string | null } & Own> {
  return {
    kind: spec.kind,
    files: spec.files,
    manifest: (rows) => ({
      [spec.field]: rows.map((l) => ({ id: l.id, name: l.name, description: l.description, ...spec.shown(l) })),
    }),
    staged: (row, fallbackName) => ({
      layerName: textOr(row.name, fallbackName).slice(0, 200),
      description: typeof row.description === 'string' ? row.description : null,
      ...spec.restored(row),
    }),
  };
}

/**
 * An object as the API shows it (a clone's manifest), as the row a file would hold: each of
 * `columns` from the API's field of the same name in camelCase (`image_key` from `imageKey`),
 * an object or array as JSON text, a missing one as null.
 */
export function fileRowOf(item: Record<string, unknown>, columns: readonly string[]): FileRow {
  return Object.fromEntries(
    columns.map((name) => {
      const value = item[name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())];
      return [name, value !== null && typeof value === 'object' ? JSON.stringify(value) : (value ?? null)];
    }),
  );
}

/** The columns of an object someone made: who (the id of an account or a guest) and when, made and last changed. */
export const authoredColumns = { created_by: 'TEXT', created_at: 'time', updated_at: 'time' } as const;

/** A restored object's author and times: the importer, and the file's times (now when missing or not between 1970 and now). */
export function authored(row: FileRow, context: RestoreContext) {
  return { created_by: context.actor.id, created_at: when(row.created_at), updated_at: when(row.updated_at) };
}

/** Where a table of a room's objects is read and written (a `RoomTable`, or the like). */
export interface ObjectStore<Row> {
  list(roomId: string): Promise<Row[]>;
  insert(trx: Db, rows: Row[]): Promise<void>;
  count?(db: Db, roomId: string): Promise<number>;
}

/**
 * The exchange of a table of a room's objects (markers, drawings, comments, replies, slides),
 * the file's table named as the database's: the domain states its columns, where the rows are
 * kept (`store`; with `db`, the export's size estimate counts them) and how a row of the file
 * becomes its own columns again (`restore.own`, see `restoredObject`); the rows are read and
 * inserted through `store`. What else it has (`geometry`, `clone`) the domain adds.
 */
export function objectsExchange<Row extends { id: string; room_id: string }>() {
  return <Omitted extends keyof Row & string, FileOnly extends string = never>(
    spec: ColumnSpec<Row, Omitted, FileOnly> & {
      table: keyof Tables & string;
      description: string;
      store: ObjectStore<Row>;
      db?: Db;
      restore: Pick<NonNullable<Exchange<Row>['restore']>, 'after' | 'counted' | 'arrange'> & {
        kind: string;
        check: (row: Row, index: number) => void;
        own: Parameters<typeof restoredObject<Row>>[2];
      };
    },
  ): Exchange<Row> => {
    const { store, db, restore } = spec;
    return {
      ...exchangeTable<Row>()<Omitted, FileOnly>(spec),
      rows: (roomId) => store.list(roomId),
      ...(db && store.count && { count: (roomId: string) => store.count!(db, roomId) }),
      restore: {
        after: restore.after,
        counted: restore.counted,
        add: restoredObject(restore.kind, restore.check, restore.own),
        insert: (trx, rows) => store.insert(trx, rows),
        ...(restore.arrange && { arrange: restore.arrange }),
      },
    };
  };
}

/**
 * The `restore.add` of a table of a room's objects: `own` gives the row's own columns from the
 * file's row (null: left out; it counts the row with `context.countOne()`); the row gets a new
 * id (`<kind>-...`) in the target room, is checked the way the API shows it (`check`), and its
 * id in the file is remembered under `kind` for the tables that refer to it.
 */
export function restoredObject<Row extends { id: string; room_id: string }>(
  kind: string,
  check: (row: Row, index: number) => void,
  own: (row: FileRow, context: RestoreContext, input: RestoreInput) => Omit<Row, 'id' | 'room_id'> | null,
): (row: FileRow, context: RestoreContext, input: RestoreInput) => Row | null {
  return (file, context, input) => {
    const columns = own(file, context, input);
    if (!columns) return null;
    const row = { id: newId(kind), room_id: context.roomId, ...columns } as Row;
    check(row, input.index);
    context.remember(kind, file.id, row.id);
    return row;
  };
}

/**
 * What a table of the file is: its name and description, its database table (`source`, by
 * default of the same name) and its columns (see `exchangeColumns`).
 */
export function exchangeTable<Row>() {
  return <Omitted extends keyof Row & string, FileOnly extends string = never>(
    spec: ColumnSpec<Row, Omitted, FileOnly> & { table: string; description: string; source?: keyof Tables },
  ): Pick<Exchange, 'table' | 'description' | 'source' | 'columns' | 'omitted' | 'fileOnly'> => ({
    table: spec.table,
    description: spec.description,
    source: spec.source ?? (spec.table as keyof Tables),
    ...exchangeColumns<Row>()<Omitted, FileOnly>(spec),
  });
}

/** A table's columns as a domain declares them: each column of `Row` kept with its kind, or omitted. */
export interface ColumnSpec<Row, Omitted extends keyof Row & string, FileOnly extends string> {
  omit: readonly Omitted[];
  fileOnly?: readonly FileOnly[];
  columns: { [K in Exclude<keyof Row & string, NoInfer<Omitted>> | NoInfer<FileOnly>]: ColumnKind };
}

/**
 * The file columns of a table: every database column is either kept (with its kind) or named
 * as omitted, so a column added to `db/tables.ts` does not compile until its domain's exchange
 * says what the file does with it (test/exchange/exchange.test.ts checks the same against the database).
 */
export function exchangeColumns<Row>() {
  return <Omitted extends keyof Row & string, FileOnly extends string = never>(
    spec: ColumnSpec<Row, Omitted, FileOnly>,
  ): Pick<Exchange, 'columns' | 'omitted' | 'fileOnly'> => ({
    columns: Object.entries<ColumnKind>(spec.columns).map(([name, kind]) =>
      kind === 'time' ? { name, type: 'DATETIME', time: true } : { name, type: kind },
    ),
    omitted: spec.omit,
    fileOnly: spec.fileOnly ?? [],
  });
}

/** What does not match between a table's database columns and its exchange: empty when each column is accounted for once. */
export function columnDrift(exchange: Exchange, databaseColumns: string[]): string[] {
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
export function restoreOrder(exchanges: Exchange[]): Exchange[] {
  const restorable = exchanges.filter((e) => e.restore);
  const tables = new Set(restorable.map((e) => e.table));
  const done = new Set<string>();
  const order: Exchange[] = [];
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
