/**
 * Bulk import on PostgreSQL writes its markers with COPY (src/db/copy-into.ts), in COPY's
 * text format; the API inserts them through Kysely with bound parameters. Both must store the
 * same values, whatever the text holds (tabs, line breaks, backslashes, `\N`, `\.`, empty
 * strings, characters of several bytes) and whatever the numbers are. On SQLite the import
 * inserts as before (no COPY): the API comparison runs there too, for parity.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import type { MarkersTable } from '../../src/db/tables.js';
import { MarkersRepository } from '../../src/modules/markers/markers.repository.js';
import { assertOk, call, postMultipart, scaffold, type TestApp, TEST_DB, type Users } from '../helpers.js';
import { bulkImportCalls, collection } from '../support/bulk-import.js';

let t: TestApp;
let users: Users;
let room: string;
const { startImport, pollJob, registerIcon } = bulkImportCalls(() => ({ t, users }));

before(async () => {
  ({ t, users, room } = await scaffold());
});
after(() => t?.close());

/** Text that COPY's text format must escape, or could mistake for its own markers. */
const AWKWARD =
  'tab\there\nline two\r\nCRLF \\ backslash \\N not null \\. not the end, ünïcødé 東京 😀 "quoted" \u0001';

/** The stored row without what differs by nature between two creations (id, times, the import's job). */
const comparable = ({ id, created_at, updated_at, import_job_id, ...rest }: MarkersTable) => rest;

async function storedRows(ids: string[]): Promise<MarkersTable[]> {
  const rows = await t.database.db.selectFrom('markers').selectAll().where('id', 'in', ids).execute();
  return ids.map((id) => rows.find((row) => row.id === id)!);
}

test('a bulk-imported marker reads back exactly as the same marker created through the API', async () => {
  const iconId = await registerIcon(room);
  const jpeg = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#3a6' } })
    .jpeg()
    .toBuffer();
  const photo = assertOk(
    await postMultipart(
      t.app,
      `/api/rooms/${room}/markers/upload-image`,
      { image: { data: jpeg, filename: 'photo.jpg', type: 'image/jpeg' } },
      users.owner.token,
    ),
  );
  const full = {
    latitude: 46.948_123_456_789_01,
    longitude: -7.000_000_1,
    title: 'Zürich\t東京 😀 \\ "quoted" \\N',
    description: AWKWARD,
    tags: ['tab\tin a tag', 'back\\slash', 'line\nbreak', 'ünï 😀', '\\.'],
    eventDate: -86_400_000,
    markerIconId: iconId,
    markerIconSize: 48,
    imageKey: photo.imageKey,
    thumbnailKey: photo.thumbnailKey,
  };
  const bare = { latitude: 1e-7, longitude: 179.999_999_999_999_97 };
  const edges = { latitude: -90, longitude: 0, title: '', description: '', tags: [], eventDate: 8.64e15 };

  const created: string[] = [];
  for (const body of [full, bare, edges]) {
    created.push(
      assertOk(await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth: users.owner.token, body }), 201).marker
        .id,
    );
  }
  const { latitude: _a, longitude: _b, ...fullProperties } = full;
  const { latitude: _c, longitude: _d, ...edgeProperties } = edges;
  const feature = (at: { latitude: number; longitude: number }, properties: object | null) => ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [at.longitude, at.latitude] },
    properties,
  });
  const job = await pollJob(
    await startImport(
      room,
      collection([feature(full, fullProperties), feature(bare, null), feature(edges, edgeProperties)]),
    ),
  );
  assert.equal(job.stage, 'complete', JSON.stringify(job));
  const imported = await t.database.db
    .selectFrom('markers')
    .select('id')
    .where('import_job_id', '=', job.jobId)
    .orderBy('id')
    .execute();
  assert.equal(imported.length, 3);

  const read = async (id: string) => {
    const {
      id: _id,
      createdAt: _c,
      updatedAt: _u,
      ...marker
    } = assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers/${id}`, { auth: users.owner.token })).marker;
    return marker;
  };
  for (const [i, { id }] of imported.entries()) {
    const [mine, theirs] = [await read(id), await read(created[i]!)];
    assert.deepEqual(mine, theirs, `feature ${i + 1} through the API`);
  }
  assert.equal((await read(imported[0]!.id)).description, AWKWARD);
  assert.deepEqual((await read(imported[0]!.id)).tags, full.tags);
  assert.equal((await read(imported[2]!.id)).title, '', 'an empty string stays empty, not null');
  assert.equal((await read(imported[1]!.id)).title, null);

  const [mine, theirs] = [await storedRows(imported.map((r) => r.id)), await storedRows(created)];
  assert.deepEqual(mine.map(comparable), theirs.map(comparable), 'the stored rows');
});

/** A marker row with every column set to something COPY's text format must get right. */
function awkwardRow(id: string, roomId: string): MarkersTable {
  return {
    id,
    room_id: roomId,
    latitude: -89.999_999_999_999_99,
    longitude: 1.234_567_890_123_456_8e-10,
    title: '\\.',
    description: AWKWARD,
    color: '#A1b2C3',
    tags: JSON.stringify(['a\tb', 'c\\d', 'e\nf', '\\N']),
    event_date: -8.64e15,
    marker_icon_id: 'icon\twith tab',
    marker_icon_size: 256,
    image_key: 'markers/x/ü.jpg',
    thumbnail_key: '',
    image_meta: JSON.stringify({ takenAt: 1.5e12, camera: { make: 'Ünï\\"', model: 'a\tb\r\n' }, gps: null }),
    embedded_media_url: 'https://example.org/a?b=c\\d',
    media_size: 'lg',
    created_by: 'user-\u00e9\u{1f600}',
    created_at: Number.MAX_SAFE_INTEGER,
    updated_at: 0,
    import_job_id: 'job\\1',
  };
}

function nullRow(id: string, roomId: string): MarkersTable {
  return {
    id,
    room_id: roomId,
    latitude: 0,
    longitude: -0.5,
    title: null,
    description: null,
    color: null,
    tags: null,
    event_date: null,
    marker_icon_id: null,
    marker_icon_size: null,
    image_key: null,
    thumbnail_key: null,
    image_meta: null,
    embedded_media_url: null,
    media_size: null,
    created_by: 'u',
    created_at: 1,
    updated_at: 2,
    import_job_id: null,
  };
}

test('COPY stores every column as the insert of the same row does (PostgreSQL); SQLite has no COPY', async () => {
  const copyInto = t.database.copyInto;
  if (TEST_DB === 'sqlite') {
    assert.equal(copyInto, undefined);
    return;
  }
  assert.ok(copyInto, 'PostgreSQL offers COPY');
  const markers = new MarkersRepository(t.database.db, copyInto);
  const made = [awkwardRow, nullRow];
  const inserted = made.map((row, i) => row(`marker-insert-${i}`, room));
  const copied = made.map((row, i) => row(`marker-copy-${i}`, room));
  await markers.insertMany(t.database.db, inserted);
  assert.equal(await markers.copyMany([copied.slice(0, 1), [], copied.slice(1)]), copied.length);

  const [byInsert, byCopy] = [await storedRows(inserted.map((r) => r.id)), await storedRows(copied.map((r) => r.id))];
  const withoutId = ({ id, ...rest }: MarkersTable) => rest;
  assert.deepEqual(byCopy.map(withoutId), byInsert.map(withoutId));
  assert.deepEqual(byCopy, copied, 'and both store the values given');
});

test('a COPY whose rows fail midway writes none of them, and the next COPY works (PostgreSQL)', async (c) => {
  if (TEST_DB === 'sqlite') return c.skip('COPY is PostgreSQL only');
  const markers = new MarkersRepository(t.database.db, t.database.copyInto);
  async function* failing() {
    yield [nullRow('marker-failed-0', room), nullRow('marker-failed-1', room)];
    throw new Error('Feature 3 (features[2]): latitude must be a number from -90 to 90');
  }
  await assert.rejects(markers.copyMany(failing()), /Feature 3/);
  assert.deepEqual(await storedRows(['marker-failed-0', 'marker-failed-1']), [undefined, undefined]);

  // The database refusing a row (a room that does not exist) also writes none.
  await assert.rejects(markers.copyMany([[nullRow('marker-orphan-0', room), nullRow('marker-orphan-1', 'no-room')]]));
  assert.deepEqual(await storedRows(['marker-orphan-0']), [undefined]);

  assert.equal(await markers.copyMany([[nullRow('marker-after-0', room)]]), 1);
  assert.equal((await storedRows(['marker-after-0']))[0]?.created_by, 'u');
});
