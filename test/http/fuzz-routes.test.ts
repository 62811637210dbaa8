import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import {
  assertFieldError,
  assertOk,
  basicAuthorization,
  call,
  createRoom,
  type FormPart,
  issueToken,
  labelled,
  postMultipart,
  type Response,
  scaffold,
  signup,
  type TestApp,
  type Users,
} from '../helpers.js';
import { makeRasterFixtures } from '../raster-fixtures.js';
import { assertErrorBody } from '../support/errors.js';
import { fillRoom } from '../support/exports.js';
import {
  type ApiRoute,
  fuzzer,
  hostileFiles,
  type HostileFile,
  type Known,
  MULTIPART_PARTS,
  routesOf,
} from '../support/fuzz.js';
import { makePhotos } from '../support/markers.js';

/**
 * Every route of the OpenAPI document, fuzzed with real credentials so that the handlers are
 * reached: hostile path segments, query strings, JSON bodies, multipart bodies and files. No
 * answer is a 5xx, every refusal is the documented error body, no request hangs, and the
 * service answers afterwards. The route list comes from the document, so a new route is
 * fuzzed without a change here. Replay a failure with MAPROOM_FUZZ_SEED=<the seed printed>.
 */

const SEED = Number(process.env.MAPROOM_FUZZ_SEED ?? 0x23f022);
/** Requests per route (multipart routes get as many again, one for each hostile file at least). */
const ROUNDS = Number(process.env.MAPROOM_FUZZ_ROUNDS ?? 10);
/** MAPROOM_FUZZ_VERBOSE=1 prints every request and its answer. */
const VERBOSE = Boolean(process.env.MAPROOM_FUZZ_VERBOSE);
/** No request may take longer: a hang fails the test rather than stalling it. */
const REQUEST_BOUND_MS = 60_000;
/** Routes that remove the room they name: fuzzed on a room made for each request. */
const ROOM = '{the-room}';
const DESTRUCTIVE = new Set([
  'DELETE /api/rooms/{roomId}',
  'POST /api/rooms/{roomId}/clear',
  'DELETE /api/admin/rooms/{roomId}',
  'PUT /api/admin/rooms/{roomId}/owner',
]);
/** An instance admin, so that the admin routes' handlers are reached too. */
const ADMIN = 'fuzz-admin@example.org';
/** Routes that end the caller's session: fuzzed with a session of a user signed up for the request. */
const SESSION_ENDING = new Set(['POST /api/auth/logout']);
/** The one 5xx a route documents: oEmbed answers 501 for any `format` but json, as its specification says. */
const DOCUMENTED_5XX = new Map([['GET /api/oembed', 501]]);

let t: TestApp;
let users: Users;
let room: string;
let roomToken: string;
let adminToken: string;
let fixtures: ReturnType<typeof makeRasterFixtures>;
let filesDir: string;
let files: HostileFile[];
const known: Known = {};

before(async () => {
  ({ t, users, room } = await scaffold({ config: { adminEmails: ADMIN } }));
  adminToken = (await signup(t.app, ADMIN)).token;
  roomToken = (await issueToken(t.app, users.owner, room, ['read', 'write', 'upload'])).token;
  fixtures = makeRasterFixtures();
  filesDir = mkdtempSync(path.join(tmpdir(), 'maproom-fuzz-'));
  const photos = await makePhotos();
  const png = await sharp({ create: { width: 16, height: 16, channels: 4, background: '#ff8800' } })
    .png()
    .toBuffer();
  files = hostileFiles(SEED, filesDir, { tif: fixtures.file('grid-2056.tif'), png, jpeg: photos.photoA });
  Object.assign(known, await seedRoom());
});
after(async () => {
  await t?.close();
  fixtures?.remove();
  if (filesDir) rmSync(filesDir, { recursive: true, force: true });
});

/** Fills the room with one of everything and returns the ids the fuzzer may put in paths and bodies. */
async function seedRoom(): Promise<Known> {
  const auth = users.owner.token;
  const filled = await fillRoom(t.app, room, auth, fixtures.file('grid-2056.tif'));
  const base = `/api/rooms/${room}`;
  const comments = assertOk(await call(t.app, 'GET', `${base}/comments`, { auth })).comments;
  const slides = assertOk(await call(t.app, 'GET', `${base}/presentation/slides`, { auth })).slides;
  const drawings = assertOk(await call(t.app, 'GET', `${base}/drawings`, { auth })).drawings;
  const marker = filled.markers[0];
  const exportJob = assertOk(await call(t.app, 'POST', `${base}/export-jobs`, { auth, body: {} }), 202);
  const spareRoom = await createRoom(t.app, users.owner);
  const spare = await issueToken(t.app, users.owner, spareRoom, ['read']);
  const embedKey = assertOk(
    await call(t.app, 'POST', `/api/rooms/${spareRoom}/embed-keys`, { auth, body: { name: 'fuzz', expiresInDays: 1 } }),
    201,
  );
  return {
    roomId: [room],
    roomName: [room],
    layerId: [filled.layer.id, filled.raster.id],
    layerIds: [filled.layer.id],
    rasterLayerIds: [filled.raster.id],
    markerId: filled.markers.map((m: { id: string }) => m.id),
    markerIds: filled.markers.map((m: { id: string }) => m.id),
    objectId: [marker.id, filled.layer.id],
    drawingId: drawings.map((d: { id: string }) => d.id),
    drawingIds: drawings.map((d: { id: string }) => d.id),
    slideId: slides.map((s: { id: string }) => s.id),
    slideIds: slides.map((s: { id: string }) => s.id),
    commentId: comments.map((c: { id: string }) => c.id),
    replyId: comments.flatMap((c: { replies: { id: string }[] }) => c.replies.map((r) => r.id)),
    iconId: [filled.icon.iconId],
    markerIconId: [filled.icon.iconId],
    key: [marker.imageKey, marker.thumbnailKey],
    imageKey: [marker.imageKey],
    thumbnailKey: [marker.thumbnailKey],
    jobId: [exportJob.jobId],
    tokenId: [spare.id],
    keyId: [embedKey.id],
    userId: [users.viewer.id, users.stranger.id],
    email: [users.stranger.email, 'invited@example.com'],
    chunkIndex: ['0', '1'],
    // What upload-chunk is sent (support/fuzz.ts), so that process-chunked assembles it.
    uploadId: ['fuzz-upload-1', 'fuzz-upload-2'],
    fileName: ['chunked.geojson', 'chunked.tif', 'chunked.zip', 'chunked.gpkg', 'chunked.csv'],
    z: ['0', '5', '12', '30'],
    x: ['0', '16', '2146'],
    y: ['0', '11', '1438'],
  };
}

/** The answer, or a failure naming the request once REQUEST_BOUND_MS has passed. */
async function bounded(request: Promise<Response>, context: string): Promise<Response> {
  const timer = new AbortController();
  const hang = sleep(REQUEST_BOUND_MS, undefined, { signal: timer.signal }).then(() => {
    throw new Error(`${context}: no answer within ${REQUEST_BOUND_MS} ms`);
  });
  try {
    return await Promise.race([request, hang]);
  } finally {
    timer.abort();
    hang.catch(() => {});
  }
}

test(`every route of the OpenAPI document, fuzzed (seed ${SEED}), answers without a 5xx and refuses with the error body`, async () => {
  console.log(`fuzz-routes: MAPROOM_FUZZ_SEED=${SEED} MAPROOM_FUZZ_ROUNDS=${ROUNDS}`);
  const doc = assertOk(await call(t.app, 'GET', '/api/openapi.json'));
  const routes = routesOf(doc);
  assert.ok(routes.length >= 60, `only ${routes.length} routes in the document`);
  const multipartRoutes = routes.filter((r) => r.multipart);
  assert.deepEqual(
    multipartRoutes.map((r) => r.key).sort(),
    Object.keys(MULTIPART_PARTS).sort(),
    'every multipart route of the document has its parts in MULTIPART_PARTS',
  );

  const f = fuzzer(SEED, known);
  // Tokens and sessions go as Bearer; a whole header is sent as it is (HTTP Basic, well-formed or not).
  const credentials: (string | { authorization: string } | undefined)[] = [
    ...Array(5).fill(users.owner.token),
    ...Array(4).fill(roomToken),
    users.viewer.token,
    undefined,
    'garbage',
    ...Array(3).fill(adminToken),
    { authorization: basicAuthorization('qgis', roomToken) },
    { authorization: basicAuthorization('\u0000é', `${roomToken}:\u00ff`) },
    {
      authorization: `Basic ${Buffer.from(Array.from({ length: 48 }, (_, i) => (i * 97 + 13) % 256)).toString('base64')}`,
    },
  ];
  const sent = new Map<string, number>();
  const statuses = new Map<number, number>();
  const failures = new Map<string, string>();

  async function fuzz(route: ApiRoute, index: number, file?: HostileFile) {
    // The room the test keeps is put in last: a route that removes a room, or a path whose
    // dot segments the URL parser folds into another route (`/drawings/..` is the room), gets
    // a room made for this request.
    const template = f.url(route, (param, value) => (param === 'roomId' && value === room ? ROOM : value));
    const folds = /\/(\.|%2e){1,2}(\/|\?|$)/i.test(template);
    const target =
      template.includes(ROOM) && (DESTRUCTIVE.has(route.key) || folds) ? await createRoom(t.app, users.owner) : room;
    const url = template.replaceAll(ROOM, target);
    const headers: Record<string, string> = {};
    let auth = f.pick(credentials);
    if (SESSION_ENDING.has(route.key) && (auth === users.owner.token || auth === users.viewer.token))
      auth = (await signup(t.app)).token;
    if (typeof auth === 'object') headers.authorization = auth.authorization;
    else if (auth) headers.authorization = `Bearer ${auth}`;
    let payload: string | Buffer | undefined;
    let shown = '';
    if (route.multipart) {
      const body = await f.multipartBody(route, file ? [file] : files);
      payload = body.payload;
      headers['content-type'] = body.contentType;
      shown = `[${body.file}]`;
    } else if (route.body || (route.method !== 'GET' && f.chance(0.3))) {
      const body = f.jsonBody(route.body);
      payload = body.payload;
      headers['content-type'] = body.contentType;
      shown = String(payload).slice(0, 100);
    }
    const context = `#${index} ${route.method} ${url.slice(0, 140)} ${shown}`;
    let res: Response;
    try {
      res = await bounded(
        t.app.inject({
          method: route.method,
          url,
          headers,
          ...(payload !== undefined && { payload }),
        }) as Promise<Response>,
        context,
      );
    } catch (error) {
      failures.set(`${route.key} hang ${index}`, (error as Error).message);
      return;
    }
    sent.set(route.key, (sent.get(route.key) ?? 0) + 1);
    if (VERBOSE) console.log(context.slice(0, 250), '->', res.statusCode, res.body.slice(0, 200));
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    const signature = `${route.key} ${res.statusCode}${file ? ` ${file.label}` : ''}`;
    try {
      const documented = DOCUMENTED_5XX.get(route.key) === res.statusCode;
      assert.ok(res.statusCode < 500 || documented, `-> ${res.statusCode} ${res.body.slice(0, 300)}`);
      if (res.statusCode >= 400) assertErrorBody(res);
    } catch (error) {
      if (!failures.has(signature)) failures.set(signature, `${context}: ${(error as Error).message.split('\n')[0]}`);
    }
  }

  // Deletes go last, so that the other routes reach the objects they name.
  const ordered = [...routes.filter((r) => r.method !== 'DELETE'), ...routes.filter((r) => r.method === 'DELETE')];
  let index = 0;
  for (const route of ordered) for (let round = 0; round < ROUNDS; round++) await fuzz(route, index++);
  for (const route of multipartRoutes) for (const file of files) await fuzz(route, index++, file);

  assert.deepEqual([...failures.values()], [], `seed ${SEED}: ${failures.size} kinds of broken answer`);
  for (const route of routes)
    assert.ok((sent.get(route.key) ?? 0) >= ROUNDS, `${route.key} got ${sent.get(route.key)}`);
  // The fuzz reached handlers (successes) as well as refusals.
  assert.ok((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0) > routes.length, JSON.stringify([...statuses]));
  console.log(`fuzz-routes: ${index} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);

  // Prototype-pollution keys changed nothing in this process.
  assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);

  // The jobs the fuzz started all end, and the service still answers.
  await settleJobs();
  assertOk(await call(t.app, 'GET', '/api/health'));
  assert.equal(assertOk(await call(t.app, 'GET', '/api/auth/me', { auth: users.owner.token })).user.id, users.owner.id);
  assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: roomToken }));
});

/** Waits until every job is `complete` or `error`; fails naming those that are not. */
async function settleJobs() {
  let open: { id: string; stage: string }[] = [];
  for (let attempt = 0; attempt < 600; attempt++) {
    open = await t.database.db
      .selectFrom('jobs')
      .select(['id', 'stage'])
      .where('stage', 'not in', ['complete', 'error'])
      .execute();
    if (open.length === 0) return;
    await sleep(100);
  }
  assert.deepEqual(open, [], 'jobs that never ended');
}

test('what the fuzz found stays fixed: numbers past a database column, a file that is not a GeoPackage', async () => {
  const auth = users.owner.token;
  // PostgreSQL's bigint holds neither: 400 naming the field, not a 500.
  for (const before of ['1e309', '1e20', 'Infinity'])
    assertFieldError(
      await call(t.app, 'GET', `/api/rooms/${room}/history?before=${before}`, { auth }),
      'querystring.before',
    );
  for (const eventDate of ['1e20', '-1e20', '9223372036854775807']) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/rooms/${room}/markers`,
      headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
      payload: `{"latitude":1,"longitude":2,"title":"late","eventDate":${eventDate}}`,
    });
    assertFieldError(res as Response, 'body.eventDate');
  }
  // The far ends of a JavaScript date are still dates.
  const far = await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
    auth,
    body: { latitude: 1, longitude: 2, title: 'far', eventDate: -8.64e15 },
  });
  assert.equal(assertOk(far, 201).marker.eventDate, -8.64e15);
  // A file that is not a GeoPackage is refused in words that show no internals (no "SQLite").
  const notGpkg = await postMultipart(
    t.app,
    `/api/rooms/${room}/import`,
    { file: { data: '{"type":"FeatureCollection","features":[]}', filename: 'room.gpkg' } },
    auth,
  );
  assert.equal(notGpkg.statusCode, 400);
  assert.equal(assertErrorBody(notGpkg).error, 'invalid_file');
});

test('a file part sent with an empty file name is refused with the error body, not a 500', async () => {
  const auth = users.owner.token;
  const random = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 37) % 256));
  const uploads: Array<[string, Record<string, FormPart>]> = [
    ['/api/layers/upload', { roomName: room, file: { data: random, filename: '' } }],
    [
      '/api/layers/upload',
      { roomName: room, file: { data: '{"type":"FeatureCollection","features":[]}', filename: '' } },
    ],
    [`/api/rooms/${room}/import`, { file: { data: random, filename: '' } }],
    [`/api/rooms/${room}/bulk-import`, { file: { data: random, filename: '' } }],
    [`/api/rooms/${room}/marker-icons`, { name: 'Pin', size: '24', icon: { data: random, filename: '' } }],
    [`/api/rooms/${room}/markers/upload-image`, { image: { data: random, filename: '' } }],
  ];
  for (const [url, parts] of uploads) {
    const res = await postMultipart(t.app, url, parts, auth);
    labelled(url, () => {
      assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body.slice(0, 200)}`);
      if (res.statusCode >= 400) assertErrorBody(res);
    });
  }
  await settleJobs();
});
