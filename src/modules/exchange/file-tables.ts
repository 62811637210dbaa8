import type { Db } from '../../db/database.js';
import type { Tables } from '../../db/tables.js';
import type { GpkgGeometryType } from '../../geo-engine/gpkg-writer.js';
import { newId } from '../../ids.js';
import type {
  ColumnKind,
  Exchange,
  FileRow,
  FileTable,
  KindExchange,
  LayerFiles,
  RestoreContext,
  RestoreInput,
  TableExport,
  TableRestore,
} from './exchange.js';
import { textOr, when } from './restore-values.js';

/**
 * How a domain declares its exchange (exchange.ts) stating only what is its own: the table's
 * columns (`fileTable`, each column of the database table kept with its kind or omitted), a
 * table of a room's objects (`objectsExchange`), a kind of the layers table (`layerKind`).
 */

/** A table's columns as a domain declares them: each column of `Row` kept with its kind, or omitted. */
export interface ColumnSpec<Row, Omitted extends keyof Row & string, FileOnly extends string> {
  omit: readonly Omitted[];
  fileOnly?: readonly FileOnly[];
  columns: { [K in Exclude<keyof Row & string, NoInfer<Omitted>> | NoInfer<FileOnly>]: ColumnKind };
}

/** A database table's name, and the columns of its file table. */
export type TableSpec<Source extends keyof Tables, Omitted, FileOnly extends string> = ColumnSpec<
  Tables[Source],
  Omitted & keyof Tables[Source] & string,
  FileOnly
> & {
  /** The database table the rows come from. */
  source: Source;
  /** The table's name in the file. */
  table: string;
  description: string;
} & Pick<FileTable, 'geometryType' | 'geometryTables' | 'blobLookup'>;

/**
 * A table of the file from the database table `source`: every column of it is either kept
 * (with its kind) or named as omitted, so a column added to `db/tables.ts` does not compile
 * until its domain's exchange says what the file does with it (test/exchange/exchange.test.ts checks
 * the same against the database).
 */
export function fileTable<Source extends keyof Tables, Omitted extends string, FileOnly extends string = never>(
  spec: TableSpec<Source, Omitted, FileOnly>,
): FileTable {
  const { table, description, source, geometryType, geometryTables, blobLookup } = spec;
  return {
    table,
    description,
    source,
    columns: Object.entries<ColumnKind>(spec.columns).map(([name, kind]) =>
      kind === 'time' ? { name, type: 'DATETIME', time: true } : { name, type: kind },
    ),
    omitted: spec.omit,
    fileOnly: spec.fileOnly ?? [],
    ...(geometryType && { geometryType }),
    ...(geometryTables && { geometryTables }),
    ...(blobLookup && { blobLookup }),
  };
}

/** The database tables of a room's objects: rows with an `id` in a room. */
export type ObjectTable = {
  [T in keyof Tables]: Tables[T] extends { id: string; room_id: string } ? T : never;
}[keyof Tables];

/** Where a table of a room's objects is read and written (a `RoomTable`, or the like). */
export interface ObjectStore<Row> {
  list(roomId: string): Promise<Row[]>;
  insert(trx: Db, rows: Row[]): Promise<void>;
  count?(db: Db, roomId: string): Promise<number>;
}

/** How a row of a room's objects is restored (see `restoredObject`). */
export interface ObjectRestore<Row extends { id: string; room_id: string }>
  extends Pick<TableRestore<Row>, 'after' | 'counted' | 'arrange'> {
  kind: string;
  check: (row: Row, index: number) => void;
  own: (row: FileRow, context: RestoreContext, input: RestoreInput) => Omit<Row, 'id' | 'room_id'> | null;
}

/**
 * The exchange of a table of a room's objects (markers, drawings, comments, replies, slides),
 * the file's table named as the database's (`source`): the domain states its columns, where
 * the rows are kept (`store`; with `db`, the export's size estimate counts them) and how a row
 * of the file becomes its own columns again (`restore.own`, see `restoredObject`); the rows
 * are read and inserted through `store`; a feature table gives its `geometry`. A `clone` the domain adds.
 */
export function objectsExchange<Source extends ObjectTable, Omitted extends string, FileOnly extends string = never>(
  spec: Omit<TableSpec<Source, Omitted, FileOnly>, 'table' | 'geometryType'> & {
    store: ObjectStore<Tables[Source]>;
    db?: Db;
    restore: ObjectRestore<Tables[Source]>;
    /** A feature table: its geometry type and each row's geometry. */
    geometry?: { type: GpkgGeometryType; of: NonNullable<TableExport<Tables[Source]>['geometry']> };
    filesGone?: TableExport<Tables[Source]>['filesGone'];
  },
): Exchange<Tables[Source]> {
  const { store, db, restore, geometry, filesGone } = spec;
  return {
    ...fileTable({ ...spec, table: spec.source, ...(geometry && { geometryType: geometry.type }) }),
    export: {
      rows: (roomId) => store.list(roomId),
      ...(db && store.count && { count: (roomId: string) => store.count!(db, roomId) }),
      ...(geometry && { geometry: geometry.of }),
      ...(filesGone && { filesGone }),
    },
    restore: {
      after: restore.after,
      counted: restore.counted,
      add: restoredObject(restore),
      insert: (trx, rows) => store.insert(trx, rows),
      ...(restore.arrange && { arrange: restore.arrange }),
    },
  };
}

/**
 * The `restore.add` of a table of a room's objects: `own` gives the row's own columns from the
 * file's row (null: left out; it counts the row with `context.countOne()`); the row gets a new
 * id (`<kind>-...`) in the target room, is checked the way the API shows it (`check`), and its
 * id in the file is remembered under `kind` for the tables that refer to it.
 */
export function restoredObject<Row extends { id: string; room_id: string }>({
  kind,
  check,
  own,
}: Pick<ObjectRestore<Row>, 'kind' | 'check' | 'own'>): TableRestore<Row>['add'] {
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
