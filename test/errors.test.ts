import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import {
  addMember,
  buildTestApp,
  call,
  createRoom,
  issueToken,
  signup,
  uniqueEmail,
  uniqueRoomId,
  type Response,
  type TestApp,
  type TestUser,
} from './helpers.js';

let t: TestApp;
let owner: TestUser;
let viewer: TestUser;
let roomId: string;
let roomToken: string;

before(async () => {
  t = await buildTestApp();
  owner = await signup(t.app);
  viewer = await signup(t.app);
  roomId = await createRoom(t.app, owner, uniqueRoomId(), { name: 'Errors room' });
  await addMember(t.app, owner, roomId, viewer, 'viewer');
  roomToken = (await issueToken(t.app, owner, roomId, ['read', 'write'])).token;
});
after(() => t.close());

const STACK_TRACE = /\bat\s+\S*\s*\(?(?:\/|[A-Za-z]:\\|file:\/\/|node:)[^)\s]*:\d+/;
const FILE_PATH = /(?:\/work\/|\/src\/|\/node_modules\/|\.ts:\d+|\.js:\d+)/;
const SQL_TEXT =
  /\bselect\b[\s\S]*\bfrom\b|\binsert\s+into\b|\bdelete\s+from\b|\bupdate\s+\S+\s+set\b|SQLITE_|sqlite|postgres|violates|constraint|syntax error at|relation "|\bkysely\b/i;

/** Asserts the documented error body: JSON `{error, message, details?}`, nothing leaking. */
function assertErrorBody(res: Response, context = '') {
  assert.match(String(res.headers['content-type']), /^application\/json/, `${context} content type`);
  let body: any;
  assert.doesNotThrow(() => (body = JSON.parse(res.body)), `${context} body is JSON: ${res.body.slice(0, 200)}`);
  assert.equal(typeof body, 'object', context);
  assert.ok(body !== null && !Array.isArray(body), context);
  assert.equal(typeof body.error, 'string', `${context} error is a string: ${res.body.slice(0, 300)}`);
  assert.ok(body.error.length > 0, context);
  assert.equal(typeof body.message, 'string', `${context} message is a string: ${res.body.slice(0, 300)}`);
  assert.ok(body.message.length > 0, context);
  for (const key of Object.keys(body)) {
    assert.ok(['error', 'message', 'details'].includes(key), `${context} unexpected key ${key} in ${res.body.slice(0, 160)}`);
  }
  assert.doesNotMatch(res.body, STACK_TRACE, `${context} stack trace leaked: ${res.body.slice(0, 300)}`);
  assert.doesNotMatch(res.body, FILE_PATH, `${context} file path leaked: ${res.body.slice(0, 300)}`);
  assert.doesNotMatch(res.body, SQL_TEXT, `${context} SQL leaked: ${res.body.slice(0, 300)}`);
  return body;
}

function assertError(res: Response, status: number, code: string, context = '') {
  assert.equal(res.statusCode, status, `${context} expected ${status}, got ${res.statusCode}: ${res.body.slice(0, 300)}`);
  const body = assertErrorBody(res, context);
  assert.equal(body.error, code, `${context} error code`);
  return body;
}

/** Runs every check and fails once at the end, listing each one that broke. */
async function allOf(checks: Array<[string, () => Promise<void>]>) {
  const problems: string[] = [];
  for (const [label, check] of checks) {
    try {
      await check();
    } catch (error) {
      problems.push(`${label}: ${(error as Error).message.split('\n')[0]!.slice(0, 200)}`);
    }
  }
  assert.deepEqual(problems, [], `${problems.length} of ${checks.length} checks failed`);
}

async function raw(method: InjectOptions['method'], url: string, payload: string | Buffer, headers: Record<string, string>, auth?: string) {
  return (await t.app.inject({
    method,
    url,
    payload,
    headers: { ...headers, ...(auth && { authorization: `Bearer ${auth}` }) },
  })) as Response;
}

// ---------------------------------------------------------------------------------------
// Framework-level failures

test('malformed JSON is 400 invalid_json', async () => {
  const cases: Array<[InjectOptions['method'], string, string | undefined]> = [
    ['POST', '/api/auth/login', undefined],
    ['POST', '/api/auth/signup', undefined],
    ['POST', `/api/rooms/${roomId}/invite`, owner.token],
    ['POST', `/api/rooms/${roomId}/api-tokens`, owner.token],
    ['PATCH', `/api/rooms/${roomId}/camera-settings`, owner.token],
  ];
  for (const [method, url, auth] of cases) {
    for (const payload of ['{"email": ', '{email: "a@b.c"}', "{'a': 1}", '[1, 2', '{"a": 1}}', 'nul']) {
      const res = await raw(method, url, payload, { 'content-type': 'application/json' }, auth);
      assertError(res, 400, 'invalid_json', `${method} ${url} ${payload}`);
    }
  }
});

const MEDIA_TYPE_CASES = (): Array<[InjectOptions['method'], string, string | undefined, string]> => [
  ['POST', '/api/auth/login', undefined, JSON.stringify({ email: 'a@example.com', password: 'correct horse' })],
  ['POST', `/api/rooms/${roomId}/invite`, owner.token, JSON.stringify({ email: uniqueEmail(), role: 'viewer' })],
  ['PATCH', `/api/rooms/${roomId}/public`, owner.token, JSON.stringify({ isPublic: true })],
];

async function assertMediaTypeRefused(types: string[]) {
  for (const [method, url, auth, payload] of MEDIA_TYPE_CASES()) {
    for (const type of types) {
      const res = await raw(method, url, payload, { 'content-type': type }, auth);
      assertError(res, 415, 'unsupported_media_type', `${method} ${url} as ${type}`);
    }
  }
  // Nothing changed through the refused requests.
  const info = await call(t.app, 'GET', `/api/rooms/${roomId}/info`, { auth: owner.token });
  assert.equal(info.json().isPublic, false);
}

test('a text/plain body on a JSON route is 415 unsupported_media_type', async () => {
  await assertMediaTypeRefused(['text/plain', 'text/plain; charset=utf-8']);
});

test('other non-JSON media types on a JSON route are 415 unsupported_media_type', async () => {
  await assertMediaTypeRefused(['application/xml', 'application/x-www-form-urlencoded', 'application/octet-stream']);
});

test('a body over 1 MiB is 413 payload_too_large', async () => {
  const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
  for (const [method, url, auth] of [
    ['POST', '/api/auth/signup', undefined],
    ['POST', `/api/rooms/${uniqueRoomId()}`, owner.token],
    ['PATCH', `/api/rooms/${roomId}/camera-settings`, owner.token],
  ] as Array<[InjectOptions['method'], string, string | undefined]>) {
    const res = await raw(method, url, big, { 'content-type': 'application/json' }, auth);
    assertError(res, 413, 'payload_too_large', `${method} ${url}`);
  }
  // Just under the limit the body is read and judged on its content instead.
  const justUnder = JSON.stringify({ name: 'x'.repeat(1024 * 1024 - 100) });
  const res = await raw('POST', `/api/rooms/${uniqueRoomId()}`, justUnder, { 'content-type': 'application/json' }, owner.token);
  assertError(res, 400, 'validation_error', 'name too long');
});

test('an unknown route is 404 not_found', async () => {
  for (const [method, url] of [
    ['GET', '/api/nope'],
    ['GET', '/api/rooms/abcdefghij/unknown-thing'],
    ['POST', '/api/auth/logout-everywhere'],
    ['PUT', `/api/rooms/${roomId}`],
    ['GET', '/'],
    ['DELETE', '/api/auth/me'],
  ] as Array<[InjectOptions['method'], string]>) {
    const res = await call(t.app, method, url, { auth: owner.token });
    assertError(res, 404, 'not_found', `${method} ${url}`);
  }
});

test('a room id of the wrong length or with other characters is 400 validation_error on every room route', async () => {
  const badIds = [
    'short',
    'toolongroomid',
    'bad.room.1',
    '%20%20%20%20%20%20%20%20%20%20',
    'abc%24efghij', // "abc$efghij": ten characters, one of them not allowed
    '%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9', // ten "é"
    'room%2Bid01', // "room+id01" (9) - wrong length and character
    'abcdefghi%00', // a NUL byte
  ];
  const routes: Array<[InjectOptions['method'], (id: string) => string, unknown]> = [
    ['GET', (id) => `/api/rooms/${id}`, undefined],
    ['GET', (id) => `/api/rooms/${id}/info`, undefined],
    ['POST', (id) => `/api/rooms/${id}`, {}],
    ['GET', (id) => `/api/rooms/${id}/members`, undefined],
    ['POST', (id) => `/api/rooms/${id}/invite`, { email: uniqueEmail(), role: 'viewer' }],
    ['POST', (id) => `/api/rooms/${id}/api-tokens`, { name: 'x', permissions: ['read'], expiresInDays: 1 }],
    ['GET', (id) => `/api/rooms/${id}/api-tokens`, undefined],
    ['GET', (id) => `/api/rooms/${id}/permissions?action=view`, undefined],
    ['PATCH', (id) => `/api/rooms/${id}/public`, { isPublic: true }],
    ['DELETE', (id) => `/api/rooms/${id}`, undefined],
  ];
  for (const id of badIds) {
    for (const [method, url, body] of routes) {
      for (const auth of [owner.token, undefined]) {
        const res = await call(t.app, method, url(id), { auth, body });
        const err = assertError(res, 400, 'validation_error', `${method} ${url(id)} ${auth ? 'owner' : 'anonymous'}`);
        assert.match(JSON.stringify(err.details ?? err.message), /roomId/, `${method} ${url(id)} names roomId`);
      }
    }
  }
  // No room was created under any of those ids.
  const ids = (await t.database.db.selectFrom('rooms').select('id').execute()).map((r) => r.id);
  for (const id of ids) assert.match(id, /^[A-Za-z0-9_-]{10}$/);
});

test('an empty body with Content-Type application/json is accepted where no body is needed', async () => {
  const doomed = await createRoom(t.app, owner);
  const extra = await signup(t.app);
  await addMember(t.app, owner, doomed, extra, 'editor');
  const { id: tokenId } = await issueToken(t.app, owner, doomed, ['read']);

  const json = { 'content-type': 'application/json' };
  const tokenGone = await raw('DELETE', `/api/rooms/${doomed}/api-tokens/${tokenId}`, '', json, owner.token);
  assert.equal(tokenGone.statusCode, 200, tokenGone.body);
  assert.deepEqual(tokenGone.json(), { success: true, id: tokenId });

  const memberGone = await raw('DELETE', `/api/rooms/${doomed}/members/${extra.id}`, '', json, owner.token);
  assert.equal(memberGone.statusCode, 200, memberGone.body);
  assert.deepEqual(memberGone.json(), { success: true, userId: extra.id });

  // A room can be created with an empty JSON body too.
  const fresh = uniqueRoomId();
  const created = await raw('POST', `/api/rooms/${fresh}`, '', json, owner.token);
  assert.equal(created.statusCode, 200, created.body);
  assert.equal(created.json().isNewRoom, true);

  const roomGone = await raw('DELETE', `/api/rooms/${doomed}`, '', json, owner.token);
  assert.equal(roomGone.statusCode, 200, roomGone.body);
  assert.deepEqual(roomGone.json(), { success: true });
  assertError(await call(t.app, 'GET', `/api/rooms/${doomed}`, { auth: owner.token }), 404, 'not_found');

  const whitespace = await raw('DELETE', `/api/rooms/${fresh}`, '  \n', json, owner.token);
  assert.equal(whitespace.statusCode, 200, whitespace.body);
});

test("a validation error's details name the field", async () => {
  const cases: Array<[InjectOptions['method'], string, unknown, string]> = [
    ['POST', `/api/rooms/${roomId}/api-tokens`, { name: 'x', permissions: ['read'], expiresInDays: 0 }, 'expiresInDays'],
    ['POST', `/api/rooms/${roomId}/api-tokens`, { name: 'x', permissions: ['read'], expiresInDays: 366 }, 'expiresInDays'],
    ['POST', `/api/rooms/${roomId}/api-tokens`, { name: 'x', permissions: ['read'], expiresInDays: 1.5 }, 'expiresInDays'],
    ['POST', `/api/rooms/${roomId}/api-tokens`, { name: 'x', permissions: ['admin'] }, 'permissions'],
    ['POST', `/api/rooms/${roomId}/api-tokens`, { permissions: ['read'] }, 'name'],
    ['POST', `/api/rooms/${roomId}/invite`, { email: uniqueEmail(), role: 'owner' }, 'role'],
    ['POST', `/api/rooms/${roomId}/invite`, { email: 'nope', role: 'viewer' }, 'email'],
    ['POST', `/api/rooms/${roomId}/invite`, { email: uniqueEmail(), role: 'viewer', sneaky: true }, 'sneaky'],
    ['PATCH', `/api/rooms/${roomId}/public`, { isPublic: 'yes' }, 'isPublic'],
    ['PATCH', `/api/rooms/${roomId}/camera-settings`, { defaultView: { lat: 91, lng: 0, zoom: 3 } }, 'lat'],
    ['PATCH', `/api/rooms/${roomId}/camera-settings`, { defaultTheme: 'neon' }, 'defaultTheme'],
    ['PATCH', `/api/rooms/${roomId}/timeline-settings`, { groupingMode: 'week' }, 'groupingMode'],
    ['POST', '/api/auth/signup', { email: uniqueEmail(), password: 'short' }, 'password'],
  ];
  for (const [method, url, body, field] of cases) {
    const res = await call(t.app, method, url, { auth: owner.token, body });
    const err = assertError(res, 400, 'validation_error', `${method} ${url} ${JSON.stringify(body)}`);
    assert.ok(err.details !== undefined, `${url}: details present`);
    assert.ok(JSON.stringify(err.details).includes(field), `${url}: details ${JSON.stringify(err.details)} name ${field}`);
  }
  // An unknown permission action is 400 as well.
  const action = await call(t.app, 'GET', `/api/rooms/${roomId}/permissions?action=fly`, { auth: owner.token });
  const err = assertError(action, 400, 'validation_error', 'permissions?action=fly');
  assert.ok(JSON.stringify(err.details ?? err.message).includes('action'));

  // None of the refused token requests created a token.
  const list = await call(t.app, 'GET', `/api/rooms/${roomId}/api-tokens`, { auth: owner.token });
  assert.equal(list.json().tokens.length, 1);
});

test('a malformed percent-escape in the path is 400 with the documented error body', async () => {
  await allOf(
    [
      ['GET', '/api/rooms/%E0%A4%A'],
      ['DELETE', `/api/rooms/${roomId}/members/%ZZ`],
      ['DELETE', `/api/rooms/${roomId}/pending-invitations/%`],
      ['DELETE', `/api/rooms/${roomId}/api-tokens/%E0%A4%A`],
    ].map(([method, url]) => [
      `${method} ${url}`,
      async () => {
        const res = await call(t.app, method as InjectOptions['method'], url!, { auth: owner.token });
        assert.equal(res.statusCode, 400, res.body);
        const body = assertErrorBody(res);
        assert.match(body.error, /^[a-z][a-z0-9_]*$/, `error is a stable machine code, got ${JSON.stringify(body.error)}`);
      },
    ]),
  );
});

test('a path parameter longer than the router expects is still the documented error', async () => {
  const checks: Array<[string, () => Promise<void>]> = [];
  // A room id of the wrong length is 400 validation_error on every route, however long.
  for (const length of [11, 100, 101, 300]) {
    const id = 'a'.repeat(length);
    for (const [method, url] of [
      ['GET', `/api/rooms/${id}`],
      ['POST', `/api/rooms/${id}`],
      ['GET', `/api/rooms/${id}/members`],
    ] as Array<[InjectOptions['method'], string]>) {
      checks.push([
        `${method} ${url.replace(id, `<${length} characters>`)}`,
        async () => {
          const res = await call(t.app, method, url, { auth: owner.token, ...(method === 'POST' && { body: {} }) });
          assertError(res, 400, 'validation_error');
        },
      ]);
    }
  }
  // Any other over-long segment is still an error in the documented shape.
  for (const [what, url] of [
    ['members/<150 characters>', `/api/rooms/${roomId}/members/${'u'.repeat(150)}`],
    ['api-tokens/<150 characters>', `/api/rooms/${roomId}/api-tokens/${'t'.repeat(150)}`],
  ]) {
    checks.push([
      `DELETE /api/rooms/:roomId/${what}`,
      async () => {
        const res = await call(t.app, 'DELETE', url!, { auth: owner.token });
        assert.ok(res.statusCode >= 400 && res.statusCode < 500, `status ${res.statusCode}`);
        assertErrorBody(res);
      },
    ]);
  }
  await allOf(checks);
});

test('a pending invitation to a long (valid) e-mail address can be revoked', async () => {
  // Invitations accept addresses up to 254 characters; revoking one names it in the path.
  const email = `${'l'.repeat(60)}@${'d'.repeat(60)}.example.com`;
  assert.ok(email.length > 100 && email.length <= 254);
  const invite = await call(t.app, 'POST', `/api/rooms/${roomId}/invite`, { auth: owner.token, body: { email, role: 'viewer' } });
  assert.equal(invite.statusCode, 200, invite.body);
  assert.equal(invite.json().status, 'pending');
  const revoke = await call(t.app, 'DELETE', `/api/rooms/${roomId}/pending-invitations/${encodeURIComponent(email)}`, {
    auth: owner.token,
  });
  assert.equal(revoke.statusCode, 200, revoke.body.slice(0, 300));
  assert.deepEqual(revoke.json(), { success: true, email });
  const pending = await call(t.app, 'GET', `/api/rooms/${roomId}/pending-invitations`, { auth: owner.token });
  assert.ok(!pending.json().invitations.some((i: any) => i.email === email));
});

test('a NUL character in a JSON string or a path parameter is never a 500', async () => {
  const checks: Array<[string, () => Promise<void>]> = [];
  const bodies: Array<[InjectOptions['method'], string, unknown]> = [
    ['POST', `/api/rooms/${uniqueRoomId()}`, { name: 'nul\u0000name' }],
    ['POST', `/api/rooms/${uniqueRoomId()}`, { description: 'nul\u0000description' }],
    ['POST', `/api/rooms/${roomId}/api-tokens`, { name: 'nul\u0000token', permissions: ['read'] }],
    ['POST', '/api/auth/login', { email: 'a@example.com', password: 'password\u0000' }],
  ];
  for (const [method, url, body] of bodies) {
    checks.push([
      `${method} ${url} ${JSON.stringify(body)}`,
      async () => {
        const res = await call(t.app, method, url, { auth: owner.token, body });
        assert.ok(res.statusCode < 500, `-> ${res.statusCode} ${res.body}`);
        if (res.statusCode >= 400) assertErrorBody(res);
      },
    ]);
  }
  for (const url of [
    `/api/rooms/${roomId}/members/nul%00user`,
    `/api/rooms/${roomId}/pending-invitations/a%00%40example.com`,
    `/api/rooms/${roomId}/api-tokens/token-%00`,
  ]) {
    checks.push([
      `DELETE ${url}`,
      async () => {
        const res = await call(t.app, 'DELETE', url, { auth: owner.token });
        assert.ok([400, 404].includes(res.statusCode), `-> ${res.statusCode} ${res.body}`);
        const body = assertErrorBody(res);
        assert.equal(body.error, res.statusCode === 404 ? 'not_found' : 'validation_error');
      },
    ]);
  }
  await allOf(checks);
});

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
  'name', 'description', 'isPublic', 'defaultView', 'defaultTheme', 'defaultBaseLayer', 'autoZoomEnabled',
  'lat', 'lng', 'zoom', 'groupingMode', 'showMarkersOnly', 'email', 'role', 'password', 'permissions',
  'expiresInDays', 'token', 'id', 'userId', 'roomId', '__proto__', 'constructor', 'prototype', 'toString',
  'hasOwnProperty', '', ' ', '$where', "name'; DROP TABLE users; --", '\u0000', 'ñame', '🗺️',
];
const STRINGS = [
  '', ' ', 'owner', 'editor', 'viewer', 'admin', 'read', 'write', 'upload', 'light', 'dark', 'osm', 'none',
  'a@b.co', 'Nobody@Example.com', 'not-an-email', "' OR 1=1 --", '"; DROP TABLE rooms; --', '<script>alert(1)</script>',
  '../../etc/passwd', '%00', '\u0000', '\ud800', '🗺️🗺️', 'NaN', 'Infinity', '-1', '1e309', 'null', 'true', '{}', '[]',
  '__proto__', 'constructor', 'mrt_', 'mrt_' + 'A'.repeat(43), 'eyJhbGciOiJub25lIn0.e30.',
];
const NUMBERS = [0, -0, 1, -1, 7, 30, 365, 366, 0.5, -90.0001, 91, 180.5, 24.5, 1e308, -1e308, 2 ** 53 + 1, 123456789012];

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
      pick(['Map', 'Zürich 🗺️', 'a'.repeat(100), 'a'.repeat(101), ' ', 'x\u0000y', "O'Brien; --", '\ud83d', 'line\nbreak']);
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
        return JSON.stringify(pick([`fuzz-${int(20)}@example.com`, `Fuzz-${int(20)}@Example.COM`, 'a@b.co', `${'l'.repeat(64)}@example.com`]));
      case 'role':
        return pick(['"editor"', '"viewer"']);
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
    if (r < 0.18) return '{"a":' + '['.repeat(2000) + ']'.repeat(2000) + '}';
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
  const credentials = [owner.token, owner.token, owner.token, viewer.token, roomToken, undefined, 'garbage', 'mrt_nope'];
  /** A path segment: mostly percent-encoded junk, now and then a raw malformed escape. */
  const segment = (values: string[]) => (f.rand() < 0.08 ? f.pick(['%ZZ', '%E0%A4%A', '%']) : encodeURIComponent(f.pick(values)));
  const routes: Array<{ method: InjectOptions['method']; path: (r: string) => string; fields: string[] }> = [
    { method: 'POST', path: (r) => `/api/rooms/${r}`, fields: ['name', 'description', 'isPublic', 'defaultView', 'defaultTheme', 'defaultBaseLayer'] },
    { method: 'GET', path: (r) => `/api/rooms/${r}`, fields: [] },
    { method: 'GET', path: (r) => `/api/rooms/${r}/info`, fields: [] },
    { method: 'PATCH', path: (r) => `/api/rooms/${r}/public`, fields: ['isPublic'] },
    { method: 'PATCH', path: (r) => `/api/rooms/${r}/presentation/public`, fields: ['isPublic'] },
    { method: 'PATCH', path: (r) => `/api/rooms/${r}/camera-settings`, fields: ['autoZoomEnabled', 'defaultView', 'defaultTheme', 'defaultBaseLayer'] },
    { method: 'PATCH', path: (r) => `/api/rooms/${r}/timeline-settings`, fields: ['groupingMode', 'showMarkersOnly', 'showAdditionsOnly', 'dateDisplayMode', 'dateTimeFormat', 'sliderMode'] },
    { method: 'GET', path: (r) => `/api/rooms/${r}/permissions?action=${f.pick(['view', 'edit', 'invite', 'fly', '', '__proto__', 'constructor'])}`, fields: [] },
    { method: 'GET', path: (r) => `/api/rooms/${r}/members`, fields: [] },
    { method: 'POST', path: (r) => `/api/rooms/${r}/invite`, fields: ['email', 'role'] },
    { method: 'DELETE', path: (r) => `/api/rooms/${r}/members/${segment([viewer.id, 'nobody', '__proto__', "x' OR '1'='1", '%00', 'nul\u0000byte', 'é'.repeat(300)])}`, fields: [] },
    { method: 'GET', path: (r) => `/api/rooms/${r}/pending-invitations`, fields: [] },
    { method: 'DELETE', path: (r) => `/api/rooms/${r}/pending-invitations/${segment(['a@b.co', 'x', '__proto__', '%', 'a\u0000@b.co'])}`, fields: [] },
    { method: 'POST', path: (r) => `/api/rooms/${r}/accept-invitation`, fields: [] },
    { method: 'POST', path: (r) => `/api/rooms/${r}/api-tokens`, fields: ['name', 'permissions', 'expiresInDays'] },
    { method: 'GET', path: (r) => `/api/rooms/${r}/api-tokens`, fields: [] },
    { method: 'DELETE', path: (r) => `/api/rooms/${r}/api-tokens/${segment(['token-nope', tokenId, '__proto__', 'token-\u0000'])}`, fields: [] },
    { method: 'POST', path: () => '/api/auth/login', fields: ['email', 'password'] },
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
    if (payload !== undefined) headers['content-type'] = f.rand() < 0.95 ? 'application/json' : f.pick(['text/plain', 'application/json; charset=utf-16', 'multipart/form-data']);
    const res = (await t.app.inject({ method: route.method, url, headers, ...(payload !== undefined && { payload }) })) as Response;
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
  assert.ok([...statuses.keys()].some((s) => s < 300), `statuses ${JSON.stringify([...statuses])}`);
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
  const rows = await t.database.db.selectFrom('api_tokens').select(['id', 'token_hash']).where('room_id', '=', room).execute();
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
  assertError(await call(t.app, 'GET', `/api/rooms/${room}/api-tokens`, { auth: issued.token }), 403, 'api_token_not_allowed');
});

test('the signup response carries no password hash', async () => {
  const email = uniqueEmail('nohash');
  const password = 'a very secret passphrase';
  const res = await call(t.app, 'POST', '/api/auth/signup', { body: { email, password } });
  assert.equal(res.statusCode, 201);
  const row = await t.database.db.selectFrom('users').select('password_hash').where('email', '=', email).executeTakeFirstOrThrow();
  assert.ok(row.password_hash);
  assert.ok(!res.body.includes(row.password_hash));
  assert.ok(!res.body.includes(row.password_hash.split('$').pop()!), 'not even the hash part');
  assert.ok(!res.body.includes(password));
  assert.ok(!res.body.includes('scrypt'));
  assert.deepEqual(Object.keys(res.json().user).sort(), ['email', 'id', 'name']);

  // Nor does the member list show anything of it.
  const room = await createRoom(t.app, owner);
  const invite = await call(t.app, 'POST', `/api/rooms/${room}/invite`, { auth: owner.token, body: { email, role: 'viewer' } });
  assert.equal(invite.json().status, 'added');
  assert.ok(!invite.body.includes(row.password_hash));
  const members = await call(t.app, 'GET', `/api/rooms/${room}/members`, { auth: owner.token });
  assert.ok(!members.body.includes(row.password_hash) && !members.body.includes('scrypt'));
});
