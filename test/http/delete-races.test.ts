/**
 * A read that loses a race with a delete answers 404 not_found (the documented error body),
 * never 500, for every kind of stored object: raster tiles and point values, vector layer
 * features, chunks, tiles, attributes and OGC items, marker photos, marker icons and export
 * artifacts (410 export_expired for one removed as its requester's oldest). Readers ask again
 * and again while the object is deleted; some of their reads are held at the object's bytes
 * until the delete has ended (the GDAL point query after its file was found, a tile's block
 * read after its raster was found), which is where the 500s came from. Every answer is the
 * whole object or the refusal, and every read after the delete is refused.
 * Decision: docs/decisions.md ("Reads that race a delete").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { EXPORTS_PER_CALLER } from '../../src/modules/exports/exports.service.js';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  postMultipart,
  type Response,
  scaffold,
  type TestApp,
  type TestUser,
} from '../helpers.js';
import { makeRasterFixtures, tileAt } from '../raster-fixtures.js';
import { type HeldRead, HoldingStore } from '../support/blobs.js';
import { createInlineLayer } from '../support/layers.js';
import { newRaster, tilePath } from '../support/rasters.js';

let t: TestApp;
let owner: TestUser;
let fixtures: ReturnType<typeof makeRasterFixtures>;
const store = new HoldingStore();

before(async () => {
  fixtures = makeRasterFixtures();
  ({
    t,
    users: { owner },
  } = await scaffold({
    users: ['owner'],
    rooms: [],
    // No cache of blocks or tiles: every tile reads the raster's file, as a busy service does.
    config: { rasterBlockCacheBytes: 0, rasterTileCacheBytes: 0 },
    build: { wrapBlobStore: (inner) => store.wrap(inner) },
  }));
});
after(async () => {
  await t?.close();
  fixtures?.remove();
});

/** Reads at once, as the probe that found the 500s sent them. */
const READERS = 24;

interface Read {
  ask(): Promise<Response>;
  /** What every successful answer of this read must hold alike (default: its bytes). */
  content?(res: Response): string;
}

interface Race {
  /** The reads; each reader asks one of them, in turn. */
  reads: Read[];
  /** Reads held at the object's bytes (a kind of read, a key prefix) until the delete has ended. */
  holds?: [HeldRead, string][];
  remove(): Promise<void>;
}

interface Answers {
  /** Every answer to a read begun before the delete ended (held reads too). */
  during: [Read, Response][];
  /** Each reader's read after the delete. */
  after: Response[];
}

/**
 * READERS readers ask the reads again and again. Once they have had READERS answers, the holds
 * are armed; once each holds a read, the object is removed, the held reads go on, and every
 * reader asks once more.
 */
async function race({ reads, holds = [], remove }: Race): Promise<Answers> {
  const during: [Read, Response][] = [];
  let removed = false;
  let answered!: () => void;
  const enough = new Promise<void>((resolve) => (answered = resolve));
  const reader = async (read: Read) => {
    while (!removed) {
      during.push([read, await read.ask()]);
      if (during.length >= READERS) answered();
    }
    return read.ask();
  };
  const readers = Array.from({ length: READERS }, (_, i) => reader(reads[i % reads.length]!));
  await enough;
  const held = holds.map(([method, prefix]) => store.hold(method, prefix));
  await Promise.all(held.map((hold) => hold.reached));
  await remove();
  removed = true;
  for (const hold of held) hold.letGo();
  return { during, after: await Promise.all(readers) };
}

/**
 * Every answer during the race is a success holding what the read's first one held, or the
 * refusal `refused` (404 not_found unless told); each read succeeded at least once; every
 * read after the delete is refused.
 */
function assertRace({ during, after }: Answers, refused = { status: 404, code: 'not_found' }) {
  const first = new Map<Read, string>();
  for (const [read, res] of during) {
    if (res.statusCode !== 200) {
      assertError(res, refused.status, refused.code);
      continue;
    }
    const content = read.content?.(res) ?? res.rawPayload.toString('base64');
    if (!first.has(read)) first.set(read, content);
    assert.equal(content, first.get(read), 'a success answers the whole object, as before the delete');
  }
  assert.equal(first.size, new Set(during.map(([read]) => read)).size, 'each read succeeded before the delete');
  assert.equal(after.length, READERS);
  for (const res of after) assertError(res, refused.status, refused.code);
}

const get = (url: string) => () => call(t.app, 'GET', url, { auth: owner.token });
const deleted = (url: string) => async () => {
  assertOk(await call(t.app, 'DELETE', url, { auth: owner.token }));
};

test('raster tiles and point values while the raster is deleted: 200 or 404, never 500', async () => {
  const room = await createRoom(t.app, owner);
  const layer = await newRaster(t.app, room, owner.token, fixtures.file('grid-2056.tif'));
  const [w, s, e, n] = layer.bbox as [number, number, number, number];
  const z = layer.maxZoom;
  const { x, y } = tileAt((w + e) / 2, (s + n) / 2, z);
  // Each point query a point of its own (no answer from the cache): one GDAL run each, in one cell.
  let asked = 0;
  const point: Read = {
    ask: () => {
      const lon = (w + e) / 2 + ++asked * 1e-9;
      return call(t.app, 'GET', `/api/rooms/${room}/raster-layers/${layer.id}/point?lon=${lon}&lat=${(s + n) / 2}`, {
        auth: owner.token,
      });
    },
    content: (res) => JSON.stringify(res.json().values),
  };
  const answers = await race({
    reads: [{ ask: get(tilePath(room, layer.id, z, x, y)) }, point],
    holds: [
      ['read', `layers/${room}/${layer.id}/`],
      ['localFile', `layers/${room}/${layer.id}/`],
    ],
    remove: deleted(`/api/layers/${layer.id}`),
  });
  assertRace(answers);
});

test('vector layer features, chunks, tiles, attributes and OGC items while the layer is deleted', async () => {
  const room = await createRoom(t.app, owner);
  const layer = await createInlineLayer(t.app, room, owner.token);
  const z = 12;
  const { x, y } = tileAt(7.44, 46.95, z);
  const bbox = 'minLon=7.4&minLat=46.9&maxLon=7.5&maxLat=47';
  const answers = await race({
    reads: [
      { ask: get(`/api/layers/${layer.id}/features`) },
      { ask: get(`/api/layers/${layer.id}/features?${bbox}`) },
      { ask: get(`/api/layers/${layer.id}/features/chunks/0`) },
      { ask: get(`/api/layers/${layer.id}/tiles/${z}/${x}/${y}.mvt`) },
      { ask: get(`/api/layers/${layer.id}/attributes`) },
      {
        ask: get(`/api/rooms/${room}/ogc/collections/${layer.id}/items?bbox=7.4,46.9,7.5,47`),
        content: (res) => JSON.stringify(res.json().features), // its timeStamp differs
      },
      { ask: get(`/api/rooms/${room}/ogc/collections/${layer.id}/items/1`) },
    ],
    remove: deleted(`/api/layers/${layer.id}`),
  });
  assertRace(answers);
});

test("a marker's photo and thumbnail while the marker (and with it the photo) is deleted", async () => {
  const room = await createRoom(t.app, owner);
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  const photo = assertOk(
    await postMultipart(
      t.app,
      `/api/rooms/${room}/markers/upload-image`,
      { image: { data: png, filename: 'a.png' } },
      owner.token,
    ),
  );
  const body = {
    latitude: 46.95,
    longitude: 7.44,
    title: 'a',
    imageKey: photo.imageKey,
    thumbnailKey: photo.thumbnailKey,
  };
  const marker = assertOk(await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth: owner.token, body }), 201);
  const answers = await race({
    reads: [
      { ask: get(`/api/rooms/${room}/markers/image?key=${photo.imageKey}`) },
      { ask: get(`/api/rooms/${room}/markers/image?key=${photo.thumbnailKey}`) },
    ],
    holds: [['get', `markers/${room}/`]],
    remove: deleted(`/api/rooms/${room}/markers/${marker.marker.id}`),
  });
  assertRace(answers);
});

test('a marker icon while its room is deleted', async () => {
  const room = await createRoom(t.app, owner);
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><circle cx="4" cy="4" r="3"/></svg>';
  const icon = assertOk(
    await postMultipart(
      t.app,
      `/api/rooms/${room}/marker-icons`,
      { icon: { data: svg, filename: 'pin.svg', type: 'image/svg+xml' }, name: 'Pin', size: '24' },
      owner.token,
    ),
    201,
  );
  const answers = await race({
    reads: [{ ask: get(`/api/rooms/${room}/marker-icons/${icon.iconId}`) }],
    holds: [['get', `icons/${room}/`]],
    remove: deleted(`/api/rooms/${room}`),
  });
  assertRace(answers);
});

/** Starts an export job of the room and waits until it is complete; answers its id. */
async function exported(room: string): Promise<string> {
  const res = await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, { auth: owner.token, body: {} });
  assert.equal(res.statusCode, 202, res.body);
  const { jobId } = res.json();
  for (;;) {
    const job = assertOk(await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}`, { auth: owner.token }));
    if (job.status === 'complete') return jobId;
    assert.ok(['pending', 'running'].includes(job.status), JSON.stringify(job));
    await sleep(20);
  }
}

/** A room with one marker (so that its export holds something). */
async function roomWithMarker() {
  const room = await createRoom(t.app, owner);
  const body = { latitude: 46.95, longitude: 7.44, title: 'a' };
  assertOk(await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth: owner.token, body }), 201);
  return room;
}

test('an export artifact while its room is deleted: 200 or 404', async () => {
  const room = await roomWithMarker();
  const jobId = await exported(room);
  const answers = await race({
    reads: [{ ask: get(`/api/rooms/${room}/export-jobs/${jobId}/artifact`) }],
    holds: [['get', `exports/${room}/`]],
    remove: deleted(`/api/rooms/${room}`),
  });
  assertRace(answers);
});

test("an export artifact while it is removed as its requester's oldest: 200 or 410 export_expired", async () => {
  const room = await roomWithMarker();
  const jobs: string[] = [];
  for (let i = 0; i < EXPORTS_PER_CALLER; i++) jobs.push(await exported(room));
  const [oldest] = jobs;
  let newest: string | undefined;
  const answers = await race({
    reads: [{ ask: get(`/api/rooms/${room}/export-jobs/${oldest}/artifact`) }],
    holds: [['get', `exports/${room}/${oldest}`]],
    remove: async () => {
      const res = await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, { auth: owner.token, body: {} });
      assert.equal(res.statusCode, 202, res.body);
      newest = res.json().jobId;
    },
  });
  assertRace(answers, { status: 410, code: 'export_expired' });
  // The newer artifacts stay; the new job completes (and does not outlive the test).
  for (const jobId of jobs.slice(1)) {
    const res = await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}/artifact`, { auth: owner.token });
    assert.equal(res.statusCode, 200, res.body);
  }
  assert.ok(newest);
  for (;;) {
    const job = assertOk(await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${newest}`, { auth: owner.token }));
    if (job.status === 'complete') break;
    await sleep(20);
  }
});
