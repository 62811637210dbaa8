/**
 * The access matrix: every route of the service's OpenAPI document, called by every kind of
 * caller (anonymous, a signed-in stranger, viewer, editor, owner, a room token of every
 * permission subset, a token of another room, a revoked and an expired token, an embed key,
 * a room token as the password of HTTP Basic) on a private room, a public room and a private
 * room with a public deck. The outcome must be the one the
 * interface promises (support/access-matrix-rules.ts), a refusal must leave the rooms as they
 * were, and a caller that may write but not read must get back only the id and the fields it
 * sent. A route missing from the expectation table (support/access-matrix-table.ts) fails.
 * Contract: docs/http-interface.md (Authentication), docs/contract-decisions.md ("Rooms", "Jobs",
 * "Callers that may write but not read"), docs/decisions.md (Errors).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertError, assertOk, call, issueToken, type Response, TOKEN_ERRORS } from '../helpers.js';
import {
  expectedOutcome,
  isWriteOnlyCaller,
  MATRIX_CALLERS,
  type Outcome,
  type Permission,
  ROOM_KINDS,
  type RoomKind,
  tokenName,
  tokensMayCall,
} from '../support/access-matrix-rules.js';
import {
  type AnswerShape,
  DOCUMENTATION_ROUTES,
  documentedRoutes,
  type Probe,
  type Reader,
  registeredRoutes,
  type RouteEntry,
  WEB_APP_ROUTES,
  type WriteOnlyContext,
} from '../support/access-matrix-routes.js';
import { ROUTES } from '../support/access-matrix-table.js';
import {
  buildMatrixWorld,
  changedParts,
  credentialOf,
  freshRoomFor,
  iconForm,
  jpeg,
  type MatrixRoom,
  type MatrixWorld,
  ONE_POINT_COLLECTION,
  roomOfKind,
  roomsState,
  send,
  STORED_SECRET,
  succeed,
  waitForJob,
} from '../support/access-matrix-world.js';

let world: MatrixWorld;
const tally = { cases: 0, refusals: 0, allowed: 0, head: 0, writeOnly: 0 };

before(async () => {
  world = await buildMatrixWorld();
});
after(async () => {
  if (world) await world.t.close();
});

/** Routes that are not the interface: its documentation, and the web application's pages and files (GET only). */
const isNotTheInterface = (route: string) => {
  const [method, path] = route.split(' ') as [string, string];
  return (
    DOCUMENTATION_ROUTES.some((pattern) => pattern.test(path)) ||
    (method === 'GET' && WEB_APP_ROUTES.some((pattern) => pattern.test(path)))
  );
};
const isMutation = (route: string) => !route.startsWith('GET ');

test('every route of the OpenAPI document states its rule in the table, and the table names no other route', () => {
  const documented = documentedRoutes(world.t.app);
  // Fastify's tree names a parameter shared by several routes once (`/api/layers/:roomName`
  // and `/api/layers/:layerId/...`): a registered route is the documented one of its shape.
  const shape = (route: string) => route.replace(/\{\w+\}/g, '{}');
  const registered = registeredRoutes(world.t.app).map(
    (route) => documented.find((d) => shape(d) === shape(route)) ?? route,
  );
  assert.ok(documented.length > 0, 'the OpenAPI document lists routes');
  assert.deepEqual(
    documented.filter((route) => !registered.includes(route)),
    [],
    "the route tree's reader sees every documented route",
  );
  const problems = {
    'routes of the document missing from the table': documented.filter((route) => !(route in ROUTES)),
    'routes the document hides, missing from the table (or not saying why they are hidden)': registered.filter(
      (route) => !documented.includes(route) && !isNotTheInterface(route) && !ROUTES[route]?.hiddenFromDocument,
    ),
    'table entries naming routes the service does not have': Object.keys(ROUTES).filter(
      (route) => !documented.includes(route) && !(ROUTES[route]!.hiddenFromDocument && registered.includes(route)),
    ),
  };
  assert.deepEqual(problems, Object.fromEntries(Object.keys(problems).map((problem) => [problem, []])));
  for (const [route, entry] of Object.entries(ROUTES)) {
    assert.ok(entry.probe || entry.checkedIn, `${route}: a probe, or where it is checked`);
    assert.ok(!entry.probe || entry.ok !== undefined, `${route}: the status an allowed probe answers`);
  }
});

test('every mutation a room token may call has a write-only probe', () => {
  const missing = Object.entries(ROUTES)
    .filter(
      ([route, entry]) => isMutation(route) && tokensMayCall(entry.rule) && !entry.writeOnly && !entry.noWriteOnlyProbe,
    )
    .map(([route]) => route);
  assert.deepEqual(missing, [], 'mutations reachable by room tokens without a write-only probe in the table');
});

/** The failure of one case, or null: the exact refusal, or an answer that is no refusal. */
function verdict(res: Response, expected: Outcome, entry: RouteEntry, reader: Reader): string | null {
  if ('allowed' in expected) {
    if (res.statusCode === 401 || res.statusCode === 403)
      return `expected to be let through, got ${res.statusCode} ${clip(res.body)}`;
    if (res.statusCode === 404 && safeJson(res)?.message === 'Room not found')
      return `expected to be let through, got the room check's 404`;
    if (res.statusCode !== entry.ok) return `expected the probe's ${entry.ok}, got ${res.statusCode} ${clip(res.body)}`;
    try {
      entry.answer?.(res.json(), reader);
    } catch (error) {
      return `the answer differs: ${(error as Error).message.split('\n')[0]}, got ${clip(res.body)}`;
    }
    return null;
  }
  try {
    assertError(res, expected.status, expected.error, expected.message);
    return null;
  } catch (_error) {
    return `expected ${expected.status} ${expected.error}${expected.message ? ` "${expected.message}"` : ''}, got ${res.statusCode} ${clip(res.body)}`;
  }
}

const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

function safeJson(res: Response): { message?: string } | undefined {
  try {
    return res.json();
  } catch {
    return undefined;
  }
}

/** Runs one route for every caller on every room kind; returns the failures. */
async function runRoute(route: string, entry: RouteEntry): Promise<string[]> {
  const failures: string[] = [];
  const roomScoped = route.includes('{roomId}') || ('need' in entry.rule && entry.rule.byId === true);
  const watched = [...ROOM_KINDS.map((kind) => world.rooms[kind].roomId), world.foreignRoomId];
  let state = await roomsState(world.t, watched);
  for (const kind of roomScoped ? ROOM_KINDS : (['private'] as const)) {
    for (const caller of MATRIX_CALLERS) {
      const expected = expectedOutcome(entry.rule, caller, kind, route.split(' ')[0]);
      const fresh = 'allowed' in expected && entry.destructive;
      const room: MatrixRoom = fresh ? await freshRoomFor(world, kind, caller) : world.rooms[kind];
      const res = await send(world.t, entry.probe!(room), credentialOf(world, caller, room));
      const label = `${kind} room, ${caller.name}`;
      tally.cases++;
      tally['allowed' in expected ? 'allowed' : 'refusals']++;
      const reader = {
        caller,
        kind,
        mayRead: 'allowed' in expectedOutcome({ need: 'read', embed: true, basic: true }, caller, kind),
      };
      const failure = verdict(res, expected, entry, reader);
      if (failure) failures.push(`${label}: ${failure}`);
      if (route.startsWith('GET ')) {
        // Fastify answers HEAD for every GET route: it must be refused alike.
        const head = await send(world.t, { ...entry.probe!(room), method: 'HEAD' }, credentialOf(world, caller, room));
        tally.head++;
        if (head.statusCode !== res.statusCode)
          failures.push(`${label}: HEAD answered ${head.statusCode}, GET ${res.statusCode}`);
      }
      const now = await roomsState(world.t, watched);
      const changed = changedParts(state, now);
      if (changed.length > 0)
        failures.push(
          `${label}: ${'allowed' in expected ? 'the probe' : 'a refused request'} changed ${changed.join(', ')}`,
        );
      state = now;
    }
  }
  return failures;
}

test("every route x caller x room: the interface's outcome, and no side effect after a refusal", async (t) => {
  for (const route of documentedRoutes(world.t.app)) {
    const entry = ROUTES[route];
    if (!entry || entry.checkedIn) continue; // a missing entry fails the enumeration test above
    await t.test(route, async () => {
      const failures = await runRoute(route, entry);
      if (failures.length > 0)
        assert.fail(`${failures.length} cases differ from the interface:\n${failures.join('\n')}`);
    });
  }
  t.diagnostic(
    `${tally.cases} cases (${tally.allowed} let through, ${tally.refusals} refused), and the same for HEAD on ${tally.head} GET cases`,
  );
});

/** Every object holding an `id` (a text, or a layer feature's number), at any depth of an answer. */
function storedObjects(value: unknown, found: Record<string, unknown>[] = []) {
  if (Array.isArray(value)) for (const item of value) storedObjects(item, found);
  else if (value && typeof value === 'object') {
    if (['string', 'number'].includes(typeof (value as { id?: unknown }).id))
      found.push(value as Record<string, unknown>);
    for (const inner of Object.values(value)) storedObjects(inner, found);
  }
  return found;
}

const sorted = (keys: Iterable<string>) => [...keys].sort();

function assertWriteOnlyAnswer(body: Record<string, unknown>, shape: AnswerShape, probe: Probe) {
  assert.deepEqual(sorted(Object.keys(body)), sorted(Object.keys(shape)), "the answer's keys");
  for (const [key, want] of Object.entries(shape)) {
    if (want === 'value') continue;
    const items = 'each' in want ? (body[key] as Record<string, unknown>[]) : [body[key] as Record<string, unknown>];
    assert.ok(Array.isArray(items) && items.length > 0, `${key}: ${JSON.stringify(body[key])}`);
    const keys = 'each' in want ? want.each : want;
    for (const item of items)
      assert.deepEqual(sorted(Object.keys(item)), sorted(keys), `${key} holds only ${keys.join(', ')}`);
  }
  const sent = new Set(['id', ...(probe.body && typeof probe.body === 'object' ? Object.keys(probe.body) : [])]);
  for (const object of storedObjects(body)) {
    assert.deepEqual(
      Object.keys(object).filter((key) => !sent.has(key)),
      [],
      `a stored object holds fields not sent: ${JSON.stringify(object)}`,
    );
  }
}

test('a caller that may write but not read gets back only the id and the fields it sent, from every mutation', async (t) => {
  const { t: app, users } = world;
  const asOwner = async (method: string, url: string, body?: unknown) =>
    succeed(
      await call(app.app, method as 'GET', url, { auth: users.owner.token, body }),
      `${method} ${url} as the owner`,
    );
  const writeOnlySubsets: Permission[][] = [['write'], ['upload'], ['write', 'upload']];
  const rooms = await Promise.all(
    ROOM_KINDS.map(async (kind: RoomKind) => {
      const roomId = await roomOfKind(app, users, kind);
      const tokens = await Promise.all(
        writeOnlySubsets.map(async (permissions) => ({
          permissions,
          token: (await issueToken(app.app, users.owner, roomId, permissions)).token,
        })),
      );
      return { kind, roomId, tokens };
    }),
  );
  for (const [route, entry] of Object.entries(ROUTES)) {
    const writeOnly = entry.writeOnly;
    if (!writeOnly) continue;
    await t.test(route, async () => {
      let ran = 0;
      for (const room of rooms) {
        for (const { permissions, token } of room.tokens) {
          if (!isWriteOnlyCaller(entry.rule, permissions)) continue;
          const label = `${room.kind} room, token ${permissions.join('+')}`;
          const ctx: WriteOnlyContext = {
            base: `/api/rooms/${room.roomId}`,
            asOwner,
            asToken: async (method, url, body) =>
              succeed(await call(app.app, method as 'GET', url, { auth: token, body }), `${label}: ${method} ${url}`),
          };
          const probe = await writeOnly.request(ctx);
          const res = await send(app, probe, token);
          assert.equal(res.statusCode, writeOnly.status, `${label}: ${res.body}`);
          assert.ok(!res.body.includes(STORED_SECRET), `${label}: the answer holds stored content: ${res.body}`);
          try {
            // 204: nothing answered, so nothing to learn.
            if (res.statusCode !== 204) assertWriteOnlyAnswer(res.json(), writeOnly.answer, probe);
          } catch (error) {
            assert.fail(`${label}: ${(error as Error).message}\n${res.body}`);
          }
          ran++;
          tally.writeOnly++;
        }
      }
      assert.ok(ran > 0, 'no write-only caller may call this route: its rule or probe is wrong');
    });
  }
  // Let the imports the probes started finish before the app closes.
  const jobs = await app.database.db
    .selectFrom('jobs')
    .select('id')
    .where(
      'room_id',
      'in',
      rooms.map((r) => r.roomId),
    )
    .execute();
  for (const job of jobs) await waitForJob(app, job.id, users.owner.token);
  t.diagnostic(`${tally.writeOnly} write-only requests`);
});

test("polling a job: a write-only token of the job's room hears 403, another room's token 404", async () => {
  const { t: app, users } = world;
  const roomId = await roomOfKind(app, users, 'public');
  const writer = await issueToken(app.app, users.owner, roomId, ['write']);
  const reader = await issueToken(app.app, users.owner, roomId, ['read']);
  const form = { file: { data: ONE_POINT_COLLECTION, filename: 'points.geojson' } };
  const { jobId } = await succeed(
    await send(app, { method: 'POST', url: `/api/rooms/${roomId}/bulk-import`, form }, writer.token),
    'import',
  );
  await waitForJob(app, jobId, users.owner.token);
  for (const url of [`/api/jobs/${jobId}`, `/api/layers/jobs/${jobId}`]) {
    assertError(await call(app.app, 'GET', url, { auth: writer.token }), 403, 'forbidden', TOKEN_ERRORS.lacksRead);
    assertError(await call(app.app, 'GET', url, { auth: world.foreignToken }), 404, 'not_found');
    // The room is public: anonymous readers may poll, and so may a read token.
    assert.equal(assertOk(await call(app.app, 'GET', url)).jobId, jobId);
    assert.equal(assertOk(await call(app.app, 'GET', url, { auth: reader.token })).stage, 'complete');
  }
});

test('a public deck opens only the images and icons its markers show, not the rest of the room', async () => {
  const { t: app, users } = world;
  const room = world.rooms.publicDeck;
  const base = `/api/rooms/${room.roomId}`;
  const image = await succeed(
    await send(
      app,
      { method: 'POST', url: `${base}/markers/upload-image`, form: { image: await jpeg(), thumbnail: await jpeg() } },
      users.owner.token,
    ),
    'upload',
  );
  const { iconId } = await succeed(
    await send(
      app,
      { method: 'POST', url: `${base}/marker-icons`, form: await iconForm('unshown') },
      users.owner.token,
    ),
    'icon',
  );
  for (const url of [
    `${base}/markers/image?key=${encodeURIComponent(image.imageKey)}`,
    `${base}/marker-icons/${iconId}`,
  ]) {
    // A visitor of the deck may not know of files it does not show: 404, as for any unknown key.
    assertError(await call(app.app, 'GET', url), 404, 'not_found');
    assertError(await call(app.app, 'GET', url, { auth: users.stranger.token }), 404, 'not_found');
    assertError(
      await call(app.app, 'GET', url, { auth: room.tokens.get(tokenName(['write'])) }),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksRead,
    );
    assert.equal((await call(app.app, 'GET', url, { auth: users.viewer.token })).statusCode, 200);
  }
});

test('the live channel is in the table, and checked where sockets are opened', () => {
  const live = ROUTES['GET /api/rooms/{roomId}/live'];
  assert.ok(live && 'listen' in live.rule && live.checkedIn?.includes('live/live.test.ts'));
});
