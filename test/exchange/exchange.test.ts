/**
 * Export and restore by contract (src/modules/exchange/exchange.ts, file-tables.ts): each domain's exchange
 * declares its table of a room export. Checked here: every column of the database is exported
 * or named as omitted (a migration adding a column its exchange does not name fails), every
 * table an export writes is declared by exactly one exchange with the columns it declares, and
 * the import restores tables after the tables they refer to.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import type { LayersTable } from '../../src/db/tables.js';
import {
  columnDrift,
  type Exchange,
  type LayerFiles,
  restoreOrder,
  writtenTables,
} from '../../src/modules/exchange/exchange.js';
import { fileTable } from '../../src/modules/exchange/file-tables.js';
import { META, RASTER_FILES } from '../../src/modules/exports/export-tables.js';
import { scaffold, type TestApp, type Users } from '../helpers.js';
import { exported, fillRoom, scratch } from '../support/exports.js';
import { makeUploadFixtures } from '../support/rasters.js';
import { exactGeometryType } from '../../src/modules/exports/export-plan.js';

let t: TestApp;
let users: Users;
let room: string;
let files: ReturnType<typeof scratch>;
let rasters: ReturnType<typeof makeUploadFixtures>;
let exchanges: Exchange[];

before(async () => {
  files = scratch();
  rasters = makeUploadFixtures();
  ({ t, users, room } = await scaffold());
  await fillRoom(t.app, room, users.owner.token, rasters.file('grid-2056.tif'));
  ({ exchanges } = t);
});
after(async () => {
  await t?.close();
  files?.remove();
  rasters?.remove();
});

/** The columns of each table of the test database, as the database reports them. */
async function databaseColumns(): Promise<Map<string, string[]>> {
  const tables = await t.database.db.introspection.getTables();
  return new Map(tables.map((table) => [table.name, table.columns.map((c) => c.name)]));
}

const byName = (exchange: Exchange, name: string) => exchange.columns.find((c) => c.name === name);

test('every column of an exchanged table is exported or named as omitted, once', async () => {
  const columns = await databaseColumns();
  for (const exchange of exchanges) {
    const own = columns.get(exchange.source);
    assert.ok(own, `the database has the table ${exchange.source}`);
    assert.deepEqual(columnDrift(exchange, own), [], exchange.table);
  }
});

test('an exchange that leaves a column of its table unnamed is reported', async () => {
  const markers = exchanges.find((e) => e.table === 'markers')!;
  const forgetful = { ...markers, columns: markers.columns.filter((c) => c.name !== 'media_size') };
  const columns = (await databaseColumns()).get('markers')!;
  assert.deepEqual(columnDrift(forgetful, columns), ['markers.media_size is neither exported nor omitted by markers']);
  const stale = { ...markers, omitted: [...markers.omitted, 'pinned'] };
  assert.deepEqual(columnDrift(stale, columns), ['markers names pinned, which markers does not have']);
});

test('the columns are made from the declaration: times become DATETIME, the order is kept', () => {
  const replies = { source: 'comment_replies', table: 'replies', description: 'Replies' } as const;
  const declared = fileTable({
    ...replies,
    omit: ['room_id', 'author_kind', 'author_id', 'comment_id'],
    fileOnly: ['data'],
    columns: { id: 'TEXT', created_at: 'time', body: 'TEXT', data: 'BLOB' },
  });
  assert.deepEqual(declared, {
    ...replies,
    columns: [
      { name: 'id', type: 'TEXT' },
      { name: 'created_at', type: 'DATETIME', time: true },
      { name: 'body', type: 'TEXT' },
      { name: 'data', type: 'BLOB' },
    ],
    omitted: ['room_id', 'author_kind', 'author_id', 'comment_id'],
    fileOnly: ['data'],
  });
  // The compiler refuses a declaration that neither keeps nor omits a column of the table.
  fileTable({
    ...replies,
    omit: ['room_id', 'author_kind', 'author_id'],
    // @ts-expect-error comment_id is neither kept nor omitted
    columns: { id: 'TEXT', created_at: 'time', body: 'TEXT' },
  });
  const markers = exchanges.find((e) => e.table === 'markers')!;
  assert.deepEqual(byName(markers, 'event_date'), { name: 'event_date', type: 'DATETIME', time: true });
  assert.deepEqual(byName(markers, 'marker_icon_size'), { name: 'marker_icon_size', type: 'INTEGER' });
});

test('every table an export writes is declared by exactly one exchange, with the columns it declares', async () => {
  const file = files.file('room.gpkg');
  await exported(t.app, room, users.owner.token, file, '?include_tiffs=true&include_tiles=true');
  const gpkg = new SQLite(file, { readonly: true });
  try {
    const written = (
      gpkg.prepare('SELECT table_name AS name FROM gpkg_contents ORDER BY table_name').all() as { name: string }[]
    ).map((r) => r.name);
    const layers = gpkg.prepare('SELECT table_name, tiles_table FROM layers').all() as {
      table_name: string | null;
      tiles_table: string | null;
    }[];
    const layerTables = new Set(layers.flatMap((l) => [l.table_name, l.tiles_table]).filter((n) => n !== null));
    assert.ok(layerTables.size >= 2, 'the room has a vector layer and a raster with tiles');
    const declared = new Set(exchanges.flatMap(writtenTables));
    assert.equal(declared.size, exchanges.flatMap(writtenTables).length, 'no two exchanges declare the same table');
    for (const name of written) {
      const owners = exchanges.filter((e) => writtenTables(e).includes(name));
      if (owners.length === 0) {
        assert.ok([META.table, RASTER_FILES.table].includes(name) || layerTables.has(name), `${name} is declared`);
        continue;
      }
      assert.equal(owners.length, 1, name);
      const columns = (gpkg.prepare(`PRAGMA table_info("${name}")`).all() as { name: string }[])
        .map((c) => c.name)
        .filter((c) => c !== 'fid' && c !== 'geom');
      assert.deepEqual(
        columns,
        owners[0]!.columns.map((c) => c.name),
        `the columns of ${name}`,
      );
    }
    for (const table of declared) assert.ok(written.includes(table), `the export writes ${table}`);
  } finally {
    gpkg.close();
  }
});

test('an import restores each table after the tables it refers to', () => {
  assert.deepEqual(
    restoreOrder(exchanges).map((e) => e.table),
    ['marker_icons', 'marker_images', 'markers', 'drawings', 'comments', 'comment_replies', 'slides'],
  );
  const restore = { counted: 'markers' as const, add: () => null };
  const a = { table: 'a', restore: { ...restore, after: ['b'] } } as unknown as Exchange;
  const b = { table: 'b', restore: { ...restore, after: ['a'] } } as unknown as Exchange;
  assert.throws(() => restoreOrder([a, b]), /cycle/);
});

test("each layer kind states its file parts: a vector layer's feature table, a raster's tiles and GeoTIFF", () => {
  const table = exchanges.find((e) => e.source === 'layers') as Exchange<LayersTable>;
  const files: LayerFiles<LayersTable> = { exported: table.export.parts!, source: table.ingest!.source };
  const layer = (row: Partial<LayersTable>) => ({ name: 'Roads', description: null, ...row }) as LayersTable;
  const both = { tiffs: true, tiles: true };
  const vector = layer({
    kind: 'vector',
    storage_key: 7,
    feature_count: 3,
    last_row: 4,
    fields: '[{"name":"a","type":"integer"}]',
  });
  assert.deepEqual(files.exported(vector, both), [
    {
      type: 'features',
      column: 'table_name',
      name: 'Roads',
      description: '',
      key: 7,
      featureCount: 3,
      lastRow: 4,
      geometryType: 'GEOMETRY',
      fields: [{ name: 'a', type: 'integer' }],
    },
  ]);
  const polygons = files.exported({ ...vector, geometry_type: 'Polygon' }, both)[0] as { geometryType: string };
  assert.equal(polygons.geometryType, 'POLYGON', "a layer of one kind: the worker makes it the table's exact type");
  assert.deepEqual(files.exported(layer({ kind: 'vector', storage_key: null }), both), []);
  const raster = layer({ kind: 'raster', file_key: 'tiles.tif', raster: '{"sourceKey":"source.tif"}' });
  assert.deepEqual(files.exported(raster, both), [
    { type: 'tiles', column: 'tiles_table', name: 'Roads tiles', fileKey: 'tiles.tif' },
    { type: 'file', fileKey: 'source.tif' },
  ]);
  assert.deepEqual(files.exported(raster, { tiffs: false, tiles: false }), []);
  assert.deepEqual(files.exported(layer({ kind: 'raster', file_key: null }), both), []);
  assert.deepEqual(files.source({ kind: 'vector', table_name: 'roads' }), { type: 'features', table: 'roads' });
  assert.equal(files.source({ kind: 'vector', table_name: null }), null);
  assert.deepEqual(files.source({ kind: 'raster', name: 'Relief', tiles_table: 'relief_tiles' }), {
    type: 'geoTiff',
    tiles: 'relief_tiles',
    skipped: {
      rasterLayer: 'Relief',
      reason: 'the export holds neither its GeoTIFF (include_tiffs) nor its tiles (include_tiles)',
    },
  });
  assert.equal((files.source({ kind: 'raster' }) as { tiles: string | null }).tiles, null);
  assert.equal(files.source({ kind: 'elevation' }), null);
});

test("a layer's table declares the exact type of its features: single, multi when some are (the others promoted), else GEOMETRY", () => {
  assert.equal(exactGeometryType('POLYGON', ['Polygon']), 'POLYGON');
  assert.equal(exactGeometryType('POLYGON', []), 'POLYGON', 'an empty layer: its kind');
  assert.equal(exactGeometryType('POLYGON', ['MultiPolygon']), 'MULTIPOLYGON');
  assert.equal(exactGeometryType('POLYGON', ['Polygon', 'MultiPolygon']), 'MULTIPOLYGON');
  assert.equal(exactGeometryType('LINESTRING', ['LineString', 'MultiLineString']), 'MULTILINESTRING');
  assert.equal(exactGeometryType('POINT', ['Point', 'GeometryCollection']), 'GEOMETRY');
  assert.equal(exactGeometryType('GEOMETRY', ['Point', 'Polygon']), 'GEOMETRY');
});

test('a column a migration adds to a table, and no exchange names, is found in the database', async () => {
  await sql`ALTER TABLE markers ADD COLUMN pinned INTEGER`.execute(t.database.db);
  const markers = exchanges.find((e) => e.table === 'markers')!;
  assert.deepEqual(columnDrift(markers, (await databaseColumns()).get('markers')!), [
    'markers.pinned is neither exported nor omitted by markers',
  ]);
});
