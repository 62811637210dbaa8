import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import {
  call,
  followVerificationLink,
  createRoom,
  issueToken,
  type Response,
  scaffold,
  type TestApp,
  type TestUser,
  uniqueEmail,
  uniqueRoomId,
} from '../helpers.js';
import { assertError, assertErrorBody } from '../support/errors.js';

/**
 * Every error answer is the documented body with nothing leaking: fuzzed requests to the room,
 * member and token routes, and secrets that no answer carries.
 */

let t: TestApp;
let owner: TestUser;
let viewer: TestUser;
let roomId: string;
let roomToken: string;

before(async () => {
  ({
    t,
    users: { owner, viewer },
    room: roomId,
  } = await scaffold({ roomBody: { name: 'Errors room' } }));
  roomToken = (await issueToken(t.app, owner, roomId, ['read', 'write'])).token;
});
after(() => t?.close());

// ---------------------------------------------------------------------------------------
// Fuzz

/** mulberry32: a small deterministic PRNG, so a failure can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const FIELD_NAMES = [
  'name',
  'description',
  'isPublic',
  'defaultView',
  'defaultTheme',
  'defaultBaseLayer',
  'autoZoomEnabled',
  'lat',
  'lng',
  'zoom',
  'groupingMode',
  'showMarkersOnly',
  'email',
  'role',
  'password',
  'permissions',
  'expiresInDays',
  'token',
  'id',
  'userId',
  'roomId',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
  ' ',
  '$where',
  "name'; DROP TABLE users; --",
  '\u0000',
  'ñame',
  '🗺️',
];
const STRINGS = [
  '',
  ' ',
  'owner',
  'editor',
  'viewer',
  'admin',
  'read',
  'write',
  'upload',
  'light',
  'dark',
  'osm',
  'none',
  'a@b.co',
  'Nobody@Example.com',
  'not-an-email',
  "' OR 1=1 --",
  '"; DROP TABLE rooms; --',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00',
  '\u0000',
  '\ud800',
  '🗺️🗺️',
  'NaN',
  'Infinity',
  '-1',
  '1e309',
  'null',
  'true',
  '{}',
  '[]',
  '__proto__',
  'constructor',
  'mrt_',
  `mrt_${'A'.repeat(43)}`,
  'eyJhbGciOiJub25lIn0.e30.',
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  7,
  30,
  365,
  366,
  0.5,
  -90.0001,
  91,
  180.5,
  24.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  123456789012,
];

function fuzzer(seed: number) {
  const rand = prng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;

  /** A JSON text (not a JS value) so that keys like __proto__ are sent verbatim. */
  function value(depth: number): string {
    const kind = int(depth > 3 ? 6 : 9);
    switch (kind) {
      case 0:
        return 'null';
      case 1:
        return rand() < 0.5 ? 'true' : 'false';
      case 2:
        return JSON.stringify(pick(NUMBERS));
      case 3:
        return JSON.stringify(pick(STRINGS));
      case 4:
        return JSON.stringify(pick(STRINGS).repeat(1 + int(3)) + (rand() < 0.1 ? 'x'.repeat(int(200_000)) : ''));
      case 5:
        return JSON.stringify(String.fromCharCode(...Array.from({ length: int(40) }, () => int(0xd7ff))));
      case 6:
      case 7:
        return object(depth + 1);
      default:
        return `[${Array.from({ length: int(5) }, () => value(depth + 1)).join(',')}]`;
    }
  }

  function object(depth: number): string {
    const keys = Array.from({ length: int(6) }, () => pick(FIELD_NAMES));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${value(depth)}`).join(',')}}`;
  }

  /** A value the route would accept for a known field, now and then with a twist. */
  function plausible(field: string): string {
    const text = () =>
      pick([
        'Map',
        'Zürich 🗺️',
        'a'.repeat(100),
        'a'.repeat(101),
        ' ',
        'x\u0000y',
        "O'Brien; --",
        '\ud83d',
        'line\nbreak',
      ]);
    switch (field) {
      case 'name':
        return JSON.stringify(text());
      case 'description':
        return JSON.stringify(pick([text(), 'd'.repeat(2000), 'd'.repeat(2001)]));
      case 'isPublic':
      case 'autoZoomEnabled':
      case 'showMarkersOnly':
      case 'showAdditionsOnly':
        return pick(['true', 'false']);
      case 'defaultView':
        return pick([
          'null',
          JSON.stringify({ lat: rand() * 180 - 90, lng: rand() * 360 - 180, zoom: rand() * 24 }),
          JSON.stringify({ lat: 90, lng: -180, zoom: 0 }),
          JSON.stringify({ lat: 1e-320, lng: -0, zoom: 24 }),
        ]);
      case 'defaultTheme':
        return pick(['"light"', '"dark"', 'null']);
      case 'defaultBaseLayer':
        return pick(['"osm"', '"carto"', '"voyager"', '"satellite"', '"swisstopo"', '"swissimage"', 'null']);
      case 'groupingMode':
        return pick(['"none"', '"day"', '"month"', '"year"']);
      case 'dateDisplayMode':
        return pick(['"event"', '"creation"']);
      case 'dateTimeFormat':
        return pick(['"dmy"', '"mdy"', '"iso"']);
      case 'sliderMode':
        return pick(['"past"', '"current"', '"future"']);
      case 'email':
        return JSON.stringify(
          pick([
            `fuzz-${int(20)}@example.com`,
            `Fuzz-${int(20)}@Example.COM`,
            'a@b.co',
            `${'l'.repeat(64)}@example.com`,
          ]),
        );
      case 'role':
        return pick(['"editor"', '"viewer"']);
      case 'locale':
        return pick(['"de"', '"fr"', '"ar"', 'null', '"DE"', '"de-CH"', '"xx"']);
      case 'basemaps': {
        const url = pick([
          'https://t.example.org/{z}/{x}/{y}.png',
          'https://t.example.org/{z}/{x}/{-y}',
          'https://t.example.org/{TileMatrix}/{TileRow}/{TileCol}',
          'http://[::1/{z}/{x}/{y}',
          'https://u:p@t.example.org/{z}/{x}/{y}',
          'javascript:{z}{x}{y}',
          'https://t.example.org/wms?x=%ZZ',
        ]);
        const one = () => ({
          id: pick(['a', 'a', 'B', '__proto__', 'x'.repeat(41)]),
          name: text(),
          type: pick(['xyz', 'wmts', 'wms', 'tms']),
          url,
          attribution: text(),
          ...(rand() < 0.5 && { layers: text() }),
        });
        return JSON.stringify(Array.from({ length: int(3) }, one));
      }
      case 'permissions':
        return JSON.stringify(['read', 'write', 'upload', 'read'].filter(() => rand() < 0.6));
      case 'expiresInDays':
        return JSON.stringify(pick([1, 30, 365, 1 + int(365)]));
      default:
        return value(1);
    }
  }

  /** A body for a route: often plausible, sometimes junk of any shape. */
  function body(fields: string[]): string {
    const r = rand();
    if (r < 0.1) return value(0);
    if (r < 0.15) return `{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}`;
    if (r < 0.18) return `{"a":${'['.repeat(2000)}${']'.repeat(2000)}}`;
    const chosen = fields.filter(() => rand() < 0.7);
    const junk = rand() < 0.3;
    if (rand() < 0.15) chosen.push(pick(FIELD_NAMES));
    return `{${chosen.map((k) => `${JSON.stringify(k)}:${!junk && rand() < 0.85 ? plausible(k) : value(1)}`).join(',')}}`;
  }

  return { rand, int, pick, body };
}

test('fuzzing the room, member and token routes never gives a 500 or leaks internals', async () => {
  const f = fuzzer(0x5eed1234);
  const otherRoom = await createRoom(t.app, owner);
  const { id: tokenId } = await issueToken(t.app, owner, otherRoom, ['read']);
  const roomIds = [
    otherRoom,
    otherRoom,
    otherRoom,
    roomId,
    roomId,
    uniqueRoomId(),
    uniqueRoomId(),
    'short',
    'toolongroomid',
    'bad.room.1',
    '%20%20%20%20%20%20%20%20%20%20',
    '__proto__0',
    'constructo',
  ];
  const credentials = [
    owner.token,
    owner.token,
    owner.token,
    viewer.token,
    roomToken,
    undefined,
    'garbage',
    'mrt_nope',
  ];
  /** A path segment: mostly percent-encoded junk, now and then a raw malformed escape. */
  const segment = (values: string[]) =>
    f.rand() < 0.08 ? f.pick(['%ZZ', '%E0%A4%A', '%']) : encodeURIComponent(f.pick(values));
  const routes: Array<{ method: InjectOptions['method']; path: (r: string) => string; fields: string[] }> = [
    {
      method: 'POST',
      path: (r) => `/api/rooms/${r}`,
      fields: ['name', 'description', 'isPublic', 'defaultView', 'defaultTheme', 'defaultBaseLayer'],
    },
    { method: 'GET', path: (r) => `/api/rooms/${r}`, fields: [] },
    { method: 'GET', path: (r) => `/api/rooms/${r}/info`, fields: [] },
    { method: 'PATCH', path: (r) => `/api/rooms/${r}/public`, fields: ['isPublic'] },
    { method: 'PATCH', path: (r) => `/api/rooms/${r}/presentation/public`, fields: ['isPublic'] },
    {
      method: 'PATCH',
      path: (r) => `/api/rooms/${r}/camera-settings`,
      fields: ['autoZoomEnabled', 'defaultView', 'defaultTheme', 'defaultBaseLayer'],
    },
    {
      method: 'PATCH',
      path: (r) => `/api/rooms/${r}/timeline-settings`,
      fields: [
        'groupingMode',
        'showMarkersOnly',
        'showAdditionsOnly',
        'dateDisplayMode',
        'dateTimeFormat',
        'sliderMode',
      ],
    },
    { method: 'PATCH', path: (r) => `/api/rooms/${r}/basemaps`, fields: ['basemaps'] },
    {
      method: 'GET',
      path: (r) =>
        `/api/rooms/${r}/permissions?action=${f.pick(['view', 'edit', 'invite', 'fly', '', '__proto__', 'constructor'])}`,
      fields: [],
    },
    { method: 'GET', path: (r) => `/api/rooms/${r}/members`, fields: [] },
    { method: 'POST', path: (r) => `/api/rooms/${r}/invite`, fields: ['email', 'role'] },
    {
      method: 'DELETE',
      path: (r) =>
        `/api/rooms/${r}/members/${segment([viewer.id, 'nobody', '__proto__', "x' OR '1'='1", '%00', 'nul\u0000byte', 'é'.repeat(300)])}`,
      fields: [],
    },
    { method: 'GET', path: (r) => `/api/rooms/${r}/pending-invitations`, fields: [] },
    {
      method: 'DELETE',
      path: (r) => `/api/rooms/${r}/pending-invitations/${segment(['a@b.co', 'x', '__proto__', '%', 'a\u0000@b.co'])}`,
      fields: [],
    },
    { method: 'POST', path: (r) => `/api/rooms/${r}/accept-invitation`, fields: [] },
    { method: 'POST', path: (r) => `/api/rooms/${r}/api-tokens`, fields: ['name', 'permissions', 'expiresInDays'] },
    { method: 'GET', path: (r) => `/api/rooms/${r}/api-tokens`, fields: [] },
    {
      method: 'DELETE',
      path: (r) => `/api/rooms/${r}/api-tokens/${segment(['token-nope', tokenId, '__proto__', 'token-\u0000'])}`,
      fields: [],
    },
    { method: 'POST', path: () => '/api/auth/login', fields: ['email', 'password'] },
    { method: 'PATCH', path: () => '/api/auth/me', fields: ['locale'] },
    { method: 'GET', path: () => '/api/rooms', fields: [] },
    { method: 'GET', path: () => '/api/users/pending-invitations', fields: [] },
  ];

  const statuses = new Map<number, number>();
  /** Every broken answer, so that one failure lists them all (by route, status and reason). */
  const failures = new Map<string, string>();
  const check = (signature: string, context: string, fn: () => void) => {
    try {
      fn();
    } catch (error) {
      if (!failures.has(signature)) failures.set(signature, `${context}: ${(error as Error).message.split('\n')[0]}`);
    }
  };
  const REQUESTS = 400;
  for (let i = 0; i < REQUESTS; i++) {
    const route = f.pick(routes);
    // Keep the main room alive: the fuzz never clears or deletes it.
    const url = route.path(f.pick(roomIds));
    const auth = f.pick(credentials);
    const sendBody = route.method !== 'GET' && f.rand() < 0.9;
    const payload = sendBody ? f.body(route.fields) : undefined;
    const headers: Record<string, string> = {};
    if (auth) headers.authorization = `Bearer ${auth}`;
    if (payload !== undefined)
      headers['content-type'] =
        f.rand() < 0.95
          ? 'application/json'
          : f.pick(['text/plain', 'application/json; charset=utf-16', 'multipart/form-data']);
    const res = (await t.app.inject({
      method: route.method,
      url,
      headers,
      ...(payload !== undefined && { payload }),
    })) as Response;
    const context = `#${i} ${route.method} ${url.slice(0, 120)} ${payload?.slice(0, 120) ?? ''}`;
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    const template = url
      .replace(/^\/api\/rooms\/[^/?]+/, '/api/rooms/:roomId')
      .replace(/\/(members|pending-invitations|api-tokens)\/[^/?]+/, '/$1/:id')
      .replace(/\?.*/, '');
    const signature = `${route.method} ${template} ${res.statusCode}`;
    check(signature, context, () => {
      assert.ok(res.statusCode < 500, `-> ${res.statusCode} ${res.body.slice(0, 300)}`);
      if (res.statusCode >= 400) assertErrorBody(res);
      else assert.doesNotMatch(res.body, /token_hash|password_hash|scrypt\$/);
    });
  }
  assert.deepEqual([...failures.values()], [], `${failures.size} kinds of broken answer`);
  // The loop reached both refusals and successes.
  assert.ok(
    [...statuses.keys()].some((s) => s < 300),
    `statuses ${JSON.stringify([...statuses])}`,
  );
  assert.ok([...statuses.keys()].filter((s) => s >= 400).length >= 4, `statuses ${JSON.stringify([...statuses])}`);

  // Prototype-pollution keys changed nothing in this process.
  assert.equal(({} as any).polluted, undefined);
  assert.equal((Object.prototype as any).polluted, undefined);

  // The service still works.
  const health = await call(t.app, 'GET', '/api/health');
  assert.equal(health.statusCode, 200);
  const me = await call(t.app, 'GET', '/api/auth/me', { auth: owner.token });
  assert.equal(me.statusCode, 200);
  assert.equal(me.json().user.id, owner.id);
});

// ---------------------------------------------------------------------------------------
// Secrets

test('the token list never contains a token secret or its hash', async () => {
  const room = await createRoom(t.app, owner);
  const issued = await issueToken(t.app, owner, room, ['read', 'upload'], 7);
  assert.match(issued.token, /^mrt_[A-Za-z0-9_-]{32,}$/);
  const rows = await t.database.db
    .selectFrom('api_tokens')
    .select(['id', 'token_hash'])
    .where('room_id', '=', room)
    .execute();
  assert.equal(rows.length, 1);
  const hash = rows[0]!.token_hash;
  assert.notEqual(hash, issued.token, 'only a hash is stored');
  assert.ok(!hash.includes(issued.token.slice(4)));

  const list = await call(t.app, 'GET', `/api/rooms/${room}/api-tokens`, { auth: owner.token });
  assert.equal(list.statusCode, 200);
  assert.ok(!list.body.includes(issued.token), 'no secret in the list');
  assert.ok(!list.body.includes(issued.token.slice(4)), 'not even without the prefix');
  assert.ok(!list.body.includes(hash), 'no hash in the list');
  const [entry] = list.json().tokens;
  assert.deepEqual(Object.keys(entry).sort(), ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'permissions']);
  assert.equal(entry.id, issued.id);
  assert.deepEqual([...entry.permissions].sort(), ['read', 'upload']);
  assert.equal(entry.expiresAt - entry.createdAt, 7 * 24 * 3600 * 1000);

  // After use, the list still carries no secret.
  assert.equal((await call(t.app, 'GET', `/api/rooms/${room}`, { auth: issued.token })).statusCode, 200);
  const again = await call(t.app, 'GET', `/api/rooms/${room}/api-tokens`, { auth: owner.token });
  assert.ok(!again.body.includes(issued.token) && !again.body.includes(hash));
  assert.equal(typeof again.json().tokens[0].lastUsedAt, 'number');

  // A token may not list tokens.
  assertError(
    await call(t.app, 'GET', `/api/rooms/${room}/api-tokens`, { auth: issued.token }),
    403,
    'api_token_not_allowed',
  );
});

test('the signup response carries no password hash', async () => {
  const email = uniqueEmail('nohash');
  const password = 'a very secret passphrase';
  const res = await call(t.app, 'POST', '/api/auth/signup', { body: { email, password } });
  assert.equal(res.statusCode, 201);
  const row = await t.database.db
    .selectFrom('users')
    .select('password_hash')
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
  assert.ok(row.password_hash);
  assert.ok(!res.body.includes(row.password_hash));
  assert.ok(!res.body.includes(row.password_hash.split('$').pop()!), 'not even the hash part');
  assert.ok(!res.body.includes(password));
  assert.ok(!res.body.includes('scrypt'));
  assert.deepEqual(Object.keys(res.json().user).sort(), ['email', 'emailVerified', 'id', 'name']);

  // Nor does the member list show anything of it (once the address is confirmed, an invitation adds the account).
  await followVerificationLink(t.app, email);
  const room = await createRoom(t.app, owner);
  const invite = await call(t.app, 'POST', `/api/rooms/${room}/invite`, {
    auth: owner.token,
    body: { email, role: 'viewer' },
  });
  assert.equal(invite.json().status, 'added');
  assert.ok(!invite.body.includes(row.password_hash));
  const members = await call(t.app, 'GET', `/api/rooms/${room}/members`, { auth: owner.token });
  assert.ok(!members.body.includes(row.password_hash) && !members.body.includes('scrypt'));
});
