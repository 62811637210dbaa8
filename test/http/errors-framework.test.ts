import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import {
  addMember,
  call,
  createRoom,
  issueToken,
  scaffold,
  signup,
  type TestApp,
  type TestUser,
  uniqueEmail,
  uniqueRoomId,
} from '../helpers.js';
import { allOf, assertError, assertErrorBody, rawRequest } from '../support/errors.js';

/**
 * Every error answer is the documented body `{error, message, details?}` with nothing
 * leaking: framework-level failures (malformed JSON, media types, sizes, unknown routes, bad ids,
 * odd paths).
 */

let t: TestApp;
let owner: TestUser;
let roomId: string;

before(async () => {
  ({
    t,
    users: { owner },
    room: roomId,
  } = await scaffold({ roomBody: { name: 'Errors room' } }));
  // The room's one token (a test counts the room's tokens).
  await issueToken(t.app, owner, roomId, ['read', 'write']);
});
after(() => t?.close());

const raw = (
  method: InjectOptions['method'],
  url: string,
  payload: string | Buffer,
  headers: Record<string, string>,
  auth?: string,
) => rawRequest(t.app, method, url, payload, headers, auth);

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
  const res = await raw(
    'POST',
    `/api/rooms/${uniqueRoomId()}`,
    justUnder,
    { 'content-type': 'application/json' },
    owner.token,
  );
  assertError(res, 400, 'validation_error', 'name too long');
});

test('an unknown route is 404 not_found', async () => {
  for (const [method, url] of [
    ['GET', '/api/nope'],
    ['GET', '/api/rooms/abcdefghij/unknown-thing'],
    ['POST', '/api/auth/logout-everywhere'],
    ['PUT', `/api/rooms/${roomId}`],
    ['GET', '/nope'],
    // DELETE /api/auth/me is a route now (account deletion).
    ['DELETE', '/api/auth/verify-email'],
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
    [
      'POST',
      `/api/rooms/${roomId}/api-tokens`,
      { name: 'x', permissions: ['read'], expiresInDays: 0 },
      'expiresInDays',
    ],
    [
      'POST',
      `/api/rooms/${roomId}/api-tokens`,
      { name: 'x', permissions: ['read'], expiresInDays: 366 },
      'expiresInDays',
    ],
    [
      'POST',
      `/api/rooms/${roomId}/api-tokens`,
      { name: 'x', permissions: ['read'], expiresInDays: 1.5 },
      'expiresInDays',
    ],
    ['POST', `/api/rooms/${roomId}/api-tokens`, { name: 'x', permissions: ['admin'] }, 'permissions'],
    ['POST', `/api/rooms/${roomId}/api-tokens`, { permissions: ['read'] }, 'name'],
    ['POST', `/api/rooms/${roomId}/invite`, { email: uniqueEmail(), role: 'owner' }, 'role'],
    ['POST', `/api/rooms/${roomId}/invite`, { email: 'nope', role: 'viewer' }, 'email'],
    ['POST', `/api/rooms/${roomId}/invite`, { email: uniqueEmail(), role: 'viewer', sneaky: true }, 'sneaky'],
    ['PATCH', `/api/rooms/${roomId}/public`, { isPublic: 'yes' }, 'isPublic'],
    ['PATCH', `/api/rooms/${roomId}/camera-settings`, { defaultView: { lat: 91, lng: 0, zoom: 3 } }, 'lat'],
    ['PATCH', `/api/rooms/${roomId}/camera-settings`, { defaultTheme: 'neon' }, 'defaultTheme'],
    ['PATCH', `/api/rooms/${roomId}/timeline-settings`, { groupingMode: 'week' }, 'groupingMode'],
    ['PATCH', `/api/rooms/${roomId}/basemaps`, { basemaps: [{ id: 'x', type: 'tms' }] }, 'basemaps'],
    ['POST', '/api/auth/signup', { email: uniqueEmail(), password: 'short' }, 'password'],
  ];
  for (const [method, url, body, field] of cases) {
    const res = await call(t.app, method, url, { auth: owner.token, body });
    const err = assertError(res, 400, 'validation_error', `${method} ${url} ${JSON.stringify(body)}`);
    assert.ok(err.details !== undefined, `${url}: details present`);
    assert.ok(
      JSON.stringify(err.details).includes(field),
      `${url}: details ${JSON.stringify(err.details)} name ${field}`,
    );
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
        assert.match(
          body.error,
          /^[a-z][a-z0-9_]*$/,
          `error is a stable machine code, got ${JSON.stringify(body.error)}`,
        );
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
  const invite = await call(t.app, 'POST', `/api/rooms/${roomId}/invite`, {
    auth: owner.token,
    body: { email, role: 'viewer' },
  });
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
  // A lone surrogate (half of a UTF-16 pair) is refused too: PostgreSQL's jsonb cannot read it.
  for (const text of ['lone \ud800', '\udfff', 'key']) {
    const body = text === 'key' ? { '\ud83d': 'value' } : { name: text };
    checks.push([
      `a lone surrogate in ${JSON.stringify(body)}`,
      async () => {
        const res = await call(t.app, 'POST', `/api/rooms/${uniqueRoomId()}`, { auth: owner.token, body });
        assertErrorBody(res);
        assert.equal(res.statusCode, 400, res.body);
        assert.match(res.json().message, /lone surrogate/);
      },
    ]);
  }
  // A pair is one character, taken.
  checks.push([
    'a surrogate pair',
    async () => {
      const res = await call(t.app, 'POST', `/api/rooms/${uniqueRoomId()}`, {
        auth: owner.token,
        body: { name: 'map \ud83d\uddfa' },
      });
      assert.equal(res.statusCode, 200, res.body);
    },
  ]);
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
