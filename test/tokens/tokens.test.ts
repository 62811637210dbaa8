import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  addMember,
  assertError,
  assertValidation,
  call,
  createRoom,
  issueToken,
  scaffold,
  type TestApp,
  TOKEN_ERRORS,
  type TestUser,
  uniqueEmail,
  uniqueRoomId,
} from '../helpers.js';

const DAY_MS = 24 * 3600 * 1000;
const TOKEN_PATTERN = /^mrt_[A-Za-z0-9_-]{32,}$/;

let t: TestApp;
let owner: TestUser;
let editor: TestUser;
let viewer: TestUser;
/** A room owned by `owner` with `editor` and `viewer` as members. */
let room: string;

before(async () => {
  ({
    t,
    users: { owner, editor, viewer },
    room,
  } = await scaffold());
});
after(() => t.close());

const createToken = (roomId: string, auth: string | undefined, body: unknown) =>
  call(t.app, 'POST', `/api/rooms/${roomId}/api-tokens`, { auth, body });

async function listTokens(roomId: string) {
  const res = await call(t.app, 'GET', `/api/rooms/${roomId}/api-tokens`, { auth: owner.token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ tokens: Array<Record<string, unknown>> }>().tokens;
}

describe('POST /api/rooms/:roomId/api-tokens', () => {
  test('issues a mrt_ token with an id; only a hash of the secret is stored', async () => {
    const res = await createToken(room, owner.token, {
      name: 'script',
      permissions: ['read', 'write'],
      expiresInDays: 7,
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['id', 'token']);
    assert.match(body.token, TOKEN_PATTERN);
    assert.equal(typeof body.id, 'string');
    assert.ok(body.id.length > 0);
    assert.ok(!body.id.includes(body.token.slice(4)), 'the id must not carry the secret');

    const row = await t.database.db.selectFrom('api_tokens').selectAll().where('id', '=', body.id).executeTakeFirst();
    assert.ok(row, 'the token is stored');
    assert.equal(row.room_id, room);
    assert.notEqual(row.token_hash, body.token);
    const opaque = body.token.slice('mrt_'.length);
    for (const [column, value] of Object.entries(row)) {
      assert.ok(!String(value).includes(opaque), `column ${column} must not contain the secret`);
    }

    // The secret works as a credential.
    const read = await call(t.app, 'GET', `/api/rooms/${room}`, { auth: body.token });
    assert.equal(read.statusCode, 200, read.body);
  });

  test('each issue yields a distinct secret and id', async () => {
    const a = await issueToken(t.app, owner, room, ['read']);
    const b = await issueToken(t.app, owner, room, ['read']);
    assert.notEqual(a.token, b.token);
    assert.notEqual(a.id, b.id);
  });

  test('expiresInDays defaults to 30 and is honoured when given', async () => {
    const r = await createRoom(t.app, owner);
    const def = await createToken(r, owner.token, { name: 'default expiry', permissions: ['read'] });
    assert.equal(def.statusCode, 200, def.body);
    const week = await createToken(r, owner.token, { name: 'a week', permissions: ['read'], expiresInDays: 7 });
    assert.equal(week.statusCode, 200, week.body);
    const year = await createToken(r, owner.token, { name: 'a year', permissions: ['read'], expiresInDays: 365 });
    assert.equal(year.statusCode, 200, year.body);
    const day = await createToken(r, owner.token, { name: 'a day', permissions: ['read'], expiresInDays: 1 });
    assert.equal(day.statusCode, 200, day.body);

    const tokens = await listTokens(r);
    const lifetime = (id: string) => {
      const tok = tokens.find((x) => x.id === id);
      assert.ok(tok, `token ${id} is listed`);
      return (tok.expiresAt as number) - (tok.createdAt as number);
    };
    assert.equal(lifetime(def.json().id), 30 * DAY_MS);
    assert.equal(lifetime(week.json().id), 7 * DAY_MS);
    assert.equal(lifetime(year.json().id), 365 * DAY_MS);
    assert.equal(lifetime(day.json().id), 1 * DAY_MS);
  });

  test('expiresInDays outside the integers 1..365 is 400 validation_error', async () => {
    for (const expiresInDays of [0, 366, 1.5, '7', -1, null]) {
      const res = await createToken(room, owner.token, { name: 'bad expiry', permissions: ['read'], expiresInDays });
      assertValidation(res, 'expiresInDays');
    }
  });

  test('permissions must be a non-empty array of read, write, upload', async () => {
    for (const permissions of [[], ['admin'], ['read', 'admin'], 'read', { read: true }]) {
      const res = await createToken(room, owner.token, { name: 'bad permissions', permissions, expiresInDays: 7 });
      assertValidation(res, 'permissions');
    }
    const missing = await createToken(room, owner.token, { name: 'no permissions', expiresInDays: 7 });
    assertValidation(missing, 'permissions');
  });

  test('a name is required', async () => {
    const missing = await createToken(room, owner.token, { permissions: ['read'], expiresInDays: 7 });
    assertValidation(missing, 'name');
    const notString = await createToken(room, owner.token, { name: 42, permissions: ['read'], expiresInDays: 7 });
    assertValidation(notString, 'name');
  });

  test('a refused request issues no token', async () => {
    const r = await createRoom(t.app, owner);
    await createToken(r, owner.token, { name: 'x', permissions: ['admin'] });
    await createToken(r, owner.token, { name: 'x', permissions: ['read'], expiresInDays: 0 });
    await createToken(r, editor.token, { name: 'x', permissions: ['read'] });
    assert.deepEqual(await listTokens(r), []);
  });

  test('editors and viewers get 403 forbidden', async () => {
    const body = { name: 'not mine', permissions: ['read'], expiresInDays: 7 };
    assertError(await createToken(room, editor.token, body), 403, 'forbidden');
    assertError(await createToken(room, viewer.token, body), 403, 'forbidden');
  });

  test('a non-member gets 403 and anonymous gets 401', async () => {
    const outsiderRoom = await createRoom(t.app, editor);
    const body = { name: 'not mine', permissions: ['read'], expiresInDays: 7 };
    assertError(await createToken(outsiderRoom, owner.token, body), 403, 'forbidden');
    assertError(await createToken(room, undefined, body), 401, 'unauthorized');
  });

  test('any room token gets 403 api_token_not_allowed', async () => {
    const body = { name: 'from a token', permissions: ['read'], expiresInDays: 7 };
    for (const permissions of [['read'], ['write'], ['upload'], ['read', 'write', 'upload']]) {
      const tok = await issueToken(t.app, owner, room, permissions);
      assertError(await createToken(room, tok.token, body), 403, 'api_token_not_allowed');
    }
  });
});

describe('GET /api/rooms/:roomId/api-tokens', () => {
  test('lists tokens without secret or hash; lastUsedAt is null until the token is used', async () => {
    const r = await createRoom(t.app, owner);
    const res = await createToken(r, owner.token, {
      name: 'lister',
      permissions: ['read', 'upload'],
      expiresInDays: 10,
    });
    assert.equal(res.statusCode, 200, res.body);
    const { token, id } = res.json();

    const listRes = await call(t.app, 'GET', `/api/rooms/${r}/api-tokens`, { auth: owner.token });
    assert.equal(listRes.statusCode, 200, listRes.body);
    const body = listRes.json();
    assert.deepEqual(Object.keys(body), ['tokens']);
    assert.equal(body.tokens.length, 1);
    const [item] = body.tokens;
    assert.deepEqual(Object.keys(item).sort(), ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'permissions']);
    assert.equal(item.id, id);
    assert.equal(item.name, 'lister');
    assert.deepEqual([...item.permissions].sort(), ['read', 'upload']);
    assert.equal(typeof item.createdAt, 'number');
    assert.equal(item.expiresAt - item.createdAt, 10 * DAY_MS);
    assert.equal(item.lastUsedAt, null);

    const row = await t.database.db
      .selectFrom('api_tokens')
      .select('token_hash')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.ok(!listRes.body.includes(token.slice(4)), 'the list must not carry the secret');
    assert.ok(!listRes.body.includes(row.token_hash), 'the list must not carry the hash');

    const used = await call(t.app, 'GET', `/api/rooms/${r}`, { auth: token });
    assert.equal(used.statusCode, 200, used.body);

    const [after] = await listTokens(r);
    assert.equal(typeof after!.lastUsedAt, 'number');
    assert.ok((after!.lastUsedAt as number) >= item.createdAt);
  });

  test("lists only this room's tokens", async () => {
    const a = await createRoom(t.app, owner);
    const b = await createRoom(t.app, owner);
    const ta = await issueToken(t.app, owner, a, ['read']);
    const tb = await issueToken(t.app, owner, b, ['write']);
    assert.deepEqual(
      (await listTokens(a)).map((x) => x.id),
      [ta.id],
    );
    assert.deepEqual(
      (await listTokens(b)).map((x) => x.id),
      [tb.id],
    );
  });

  test('only the owner may list: editor/viewer 403, anonymous 401, token 403 api_token_not_allowed', async () => {
    const url = `/api/rooms/${room}/api-tokens`;
    assertError(await call(t.app, 'GET', url, { auth: editor.token }), 403, 'forbidden');
    assertError(await call(t.app, 'GET', url, { auth: viewer.token }), 403, 'forbidden');
    assertError(await call(t.app, 'GET', url), 401, 'unauthorized');
    const tok = await issueToken(t.app, owner, room, ['read', 'write', 'upload']);
    assertError(await call(t.app, 'GET', url, { auth: tok.token }), 403, 'api_token_not_allowed');
  });
});

describe('DELETE /api/rooms/:roomId/api-tokens/:tokenId', () => {
  test('revokes at once: the next request with the token is 401', async () => {
    const r = await createRoom(t.app, owner);
    const tok = await issueToken(t.app, owner, r, ['read']);
    const keep = await issueToken(t.app, owner, r, ['read']);
    assert.equal((await call(t.app, 'GET', `/api/rooms/${r}`, { auth: tok.token })).statusCode, 200);

    const del = await call(t.app, 'DELETE', `/api/rooms/${r}/api-tokens/${tok.id}`, { auth: owner.token });
    assert.equal(del.statusCode, 200, del.body);
    assert.equal(del.json().success, true);

    assertError(
      await call(t.app, 'GET', `/api/rooms/${r}`, { auth: tok.token }),
      401,
      'unauthorized',
      TOKEN_ERRORS.invalid,
    );
    assert.deepEqual(
      (await listTokens(r)).map((x) => x.id),
      [keep.id],
    );
    // The other token of the room is untouched.
    assert.equal((await call(t.app, 'GET', `/api/rooms/${r}`, { auth: keep.token })).statusCode, 200);

    // Revoking again: it is gone.
    assertError(
      await call(t.app, 'DELETE', `/api/rooms/${r}/api-tokens/${tok.id}`, { auth: owner.token }),
      404,
      'not_found',
    );
  });

  test('an unknown token id is 404', async () => {
    assertError(
      await call(t.app, 'DELETE', `/api/rooms/${room}/api-tokens/token-does-not-exist`, { auth: owner.token }),
      404,
      'not_found',
    );
  });

  test("another room's token id through this room's path is 404 and that token keeps working", async () => {
    const other = await createRoom(t.app, owner);
    const foreign = await issueToken(t.app, owner, other, ['read']);
    assertError(
      await call(t.app, 'DELETE', `/api/rooms/${room}/api-tokens/${foreign.id}`, { auth: owner.token }),
      404,
      'not_found',
    );
    const still = await call(t.app, 'GET', `/api/rooms/${other}`, { auth: foreign.token });
    assert.equal(still.statusCode, 200, still.body);
    assert.deepEqual(
      (await listTokens(other)).map((x) => x.id),
      [foreign.id],
    );
  });

  test('only an owner session may revoke', async () => {
    const tok = await issueToken(t.app, owner, room, ['read', 'write', 'upload']);
    const url = `/api/rooms/${room}/api-tokens/${tok.id}`;
    assertError(await call(t.app, 'DELETE', url, { auth: editor.token }), 403, 'forbidden');
    assertError(await call(t.app, 'DELETE', url, { auth: viewer.token }), 403, 'forbidden');
    assertError(await call(t.app, 'DELETE', url), 401, 'unauthorized');
    assertError(await call(t.app, 'DELETE', url, { auth: tok.token }), 403, 'api_token_not_allowed');
    // A token cannot revoke itself either; it still works.
    assert.equal((await call(t.app, 'GET', `/api/rooms/${room}`, { auth: tok.token })).statusCode, 200);
  });
});

test('an expired token is 401 Invalid or expired API token', async () => {
  const r = await createRoom(t.app, owner, uniqueRoomId(), { isPublic: true });
  const tok = await issueToken(t.app, owner, r, ['read', 'write']);
  assert.equal((await call(t.app, 'GET', `/api/rooms/${r}`, { auth: tok.token })).statusCode, 200);

  const past = Date.now() - DAY_MS;
  await t.database.db.updateTable('api_tokens').set({ expires_at: past }).where('id', '=', tok.id).execute();
  // The service caches credentials briefly; a row changed behind its back is read after a restart.
  await t.restart();

  // Even on a public room, where anonymous reads succeed, the expired credential is refused.
  assertError(
    await call(t.app, 'GET', `/api/rooms/${r}`, { auth: tok.token }),
    401,
    'unauthorized',
    TOKEN_ERRORS.invalid,
  );
  assert.equal((await call(t.app, 'GET', `/api/rooms/${r}`)).statusCode, 200);
});

describe('Authentication rules for room tokens', () => {
  test("a token of room A used on room B is 403 'API token is not scoped to this room'", async () => {
    const a = await createRoom(t.app, owner);
    const b = await createRoom(t.app, owner, uniqueRoomId(), { isPublic: true });
    const tok = await issueToken(t.app, owner, a, ['read', 'write', 'upload']);
    assertError(
      await call(t.app, 'GET', `/api/rooms/${b}`, { auth: tok.token }),
      403,
      'forbidden',
      TOKEN_ERRORS.wrongRoom,
    );
    // Also for a room that does not exist.
    assertError(
      await call(t.app, 'GET', `/api/rooms/${uniqueRoomId()}`, { auth: tok.token }),
      403,
      'forbidden',
      TOKEN_ERRORS.wrongRoom,
    );
  });

  test('a token lacking read is 403 "API token lacks \'read\' permission"', async () => {
    const writeOnly = await issueToken(t.app, owner, room, ['write']);
    assertError(
      await call(t.app, 'GET', `/api/rooms/${room}`, { auth: writeOnly.token }),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksRead,
    );
    const uploadOnly = await issueToken(t.app, owner, room, ['upload']);
    assertError(
      await call(t.app, 'GET', `/api/rooms/${room}`, { auth: uploadOnly.token }),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksRead,
    );
  });

  test("answers decided from cached access stay each caller's own (tokens of one room, HEAD as GET, write-only answers)", async () => {
    const r = await createRoom(t.app, owner);
    const reader = await issueToken(t.app, owner, r, ['read']);
    const writer = await issueToken(t.app, owner, r, ['write']);
    const markers = `/api/rooms/${r}/markers`;
    const body = { latitude: 1, longitude: 2, title: 'Cached' };
    // The first round reads the tokens and the room; the later ones are decided from the cache.
    for (let round = 0; round < 3; round++) {
      assert.equal((await call(t.app, 'GET', markers, { auth: reader.token })).statusCode, 200);
      assertError(await call(t.app, 'GET', markers, { auth: writer.token }), 403, 'forbidden', TOKEN_ERRORS.lacksRead);
      assertError(
        await call(t.app, 'POST', markers, { auth: reader.token, body }),
        403,
        'forbidden',
        TOKEN_ERRORS.lacksWrite,
      );
      const created = await call(t.app, 'POST', markers, { auth: writer.token, body });
      assert.equal(created.statusCode, 201, created.body);
      // Write without read: only the id and the fields sent come back.
      assert.deepEqual(Object.keys(created.json().marker).sort(), ['id', 'latitude', 'longitude', 'title']);
      const full = await call(t.app, 'POST', markers, { auth: owner.token, body });
      assert.ok('createdAt' in full.json().marker, full.body);
      assert.equal((await call(t.app, 'HEAD', markers, { auth: reader.token })).statusCode, 200);
      assert.equal((await call(t.app, 'HEAD', markers, { auth: writer.token })).statusCode, 403);
      assert.equal((await call(t.app, 'HEAD', markers)).statusCode, 401);
    }
  });

  test('a read token may read room metadata', async () => {
    const tok = await issueToken(t.app, owner, room, ['read']);
    const res = await call(t.app, 'GET', `/api/rooms/${room}`, { auth: tok.token });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.roomId, room);
    assert.equal(typeof body.counts, 'object');
    // userRole and hasAccess are for authenticated members only, and a token is not a member.
    assert.equal(body.userRole, undefined);
  });

  test('owner and administrator endpoints refuse every room token with 403 api_token_not_allowed', async () => {
    const r = await createRoom(t.app, owner, uniqueRoomId(), { isPublic: false });
    const invitee = uniqueEmail('pending');
    const inv = await call(t.app, 'POST', `/api/rooms/${r}/invite`, {
      auth: owner.token,
      body: { email: invitee, role: 'viewer' },
    });
    assert.equal(inv.statusCode, 200, inv.body);
    await addMember(t.app, owner, r, viewer, 'viewer');
    const all = await issueToken(t.app, owner, r, ['read', 'write', 'upload']);
    const readOnly = await issueToken(t.app, owner, r, ['read']);
    const victim = await issueToken(t.app, owner, r, ['read']);

    const calls: Array<[string, string, unknown?]> = [
      ['PATCH', `/api/rooms/${r}`, { name: 'renamed by a token' }],
      ['PATCH', `/api/rooms/${r}/public`, { isPublic: true }],
      ['PATCH', `/api/rooms/${r}/camera-settings`, { autoZoomEnabled: false }],
      ['PATCH', `/api/rooms/${r}/timeline-settings`, { groupingMode: 'day' }],
      ['PATCH', `/api/rooms/${r}/basemaps`, { basemaps: [] }],
      ['POST', `/api/rooms/${r}/clear`],
      ['DELETE', `/api/rooms/${r}`],
      ['POST', `/api/rooms/${r}/api-tokens`, { name: 'minted by a token', permissions: ['read'], expiresInDays: 7 }],
      ['GET', `/api/rooms/${r}/api-tokens`],
      ['DELETE', `/api/rooms/${r}/api-tokens/${victim.id}`],
      ['GET', `/api/rooms/${r}/members`],
      ['POST', `/api/rooms/${r}/invite`, { email: uniqueEmail('by-token'), role: 'editor' }],
      ['DELETE', `/api/rooms/${r}/members/${viewer.id}`],
      ['GET', `/api/rooms/${r}/pending-invitations`],
      ['DELETE', `/api/rooms/${r}/pending-invitations/${encodeURIComponent(invitee)}`],
      ['GET', '/api/rooms'],
      ['GET', '/api/auth/me'],
      ['GET', '/api/users/pending-invitations'],
    ];
    for (const tok of [all, readOnly]) {
      for (const [method, url, body] of calls) {
        const res = await call(t.app, method as 'GET', url, { auth: tok.token, body });
        assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().error, 'api_token_not_allowed', `${method} ${url}: ${res.body}`);
      }
    }

    // Nothing changed.
    const meta = await call(t.app, 'GET', `/api/rooms/${r}`, { auth: owner.token });
    assert.equal(meta.statusCode, 200, meta.body);
    assert.equal(meta.json().isPublic, false);
    assert.deepEqual((await listTokens(r)).map((x) => x.id).sort(), [all.id, readOnly.id, victim.id].sort());
    const members = await call(t.app, 'GET', `/api/rooms/${r}/members`, { auth: owner.token });
    assert.ok(members.json().some((m: { userId: string }) => m.userId === viewer.id));
    const pending = await call(t.app, 'GET', `/api/rooms/${r}/pending-invitations`, { auth: owner.token });
    assert.deepEqual(
      pending.json().invitations.map((i: { email: string }) => i.email.toLowerCase()),
      [invitee.toLowerCase()],
    );
  });

  test('a malformed Bearer credential or a non-Bearer scheme is 401, even on a public room', async () => {
    const r = await createRoom(t.app, owner, uniqueRoomId(), { isPublic: true });
    const tok = await issueToken(t.app, owner, r, ['read']);
    const url = `/api/rooms/${r}`;
    assert.equal((await call(t.app, 'GET', url)).statusCode, 200, 'anonymous may read a public room');

    for (const authorization of [
      'Bearer garbage',
      'Bearer not.a.jwt',
      'Bearer mrt_notARealTokenAtAllButLongEnough0123456789',
      `Basic ${Buffer.from('user:pass').toString('base64')}`,
      `Token ${tok.token}`,
      tok.token,
    ]) {
      const res = await call(t.app, 'GET', url, { headers: { authorization } });
      assertError(res, 401, 'unauthorized');
    }
  });

  test('room tokens are not user sessions: creating a room with one is 403 and creates nothing', async () => {
    const tok = await issueToken(t.app, owner, room, ['read', 'write', 'upload']);
    const newId = uniqueRoomId();
    assertError(
      await call(t.app, 'POST', `/api/rooms/${newId}`, { auth: tok.token, body: {} }),
      403,
      'api_token_not_allowed',
    );
    // The same for the token's own room id (no silent "existing room" answer).
    assertError(
      await call(t.app, 'POST', `/api/rooms/${room}`, { auth: tok.token, body: {} }),
      403,
      'api_token_not_allowed',
    );

    const row = await t.database.db.selectFrom('rooms').select('id').where('id', '=', newId).executeTakeFirst();
    assert.equal(row, undefined);
    assertError(await call(t.app, 'GET', `/api/rooms/${newId}`, { auth: owner.token }), 404, 'not_found');
  });
});
