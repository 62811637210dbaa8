/**
 * The instance admin over HTTP: who is one (ADMIN_EMAILS with a confirmed address), the one
 * access rule of /api/admin/..., the users and rooms lists (search, keyset paging, what each
 * row counts), deleting a room, the limits and the audit list.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  addMember,
  assertError,
  assertOk,
  call,
  createRoom,
  issueToken,
  postMultipart,
  signup,
  type TestApp,
  type TestUser,
  TOKEN_ERRORS,
  buildTestApp,
} from '../helpers.js';

const ADMIN = 'boss@example.org';
const UNPROVEN = 'unproven-boss@example.org';

let t: TestApp;
let admin: TestUser;
let unproven: TestUser;
let alice: TestUser;
let bob: TestUser;
let aliceRoom: string;

before(async () => {
  t = await buildTestApp({ adminEmails: `${ADMIN}, ${UNPROVEN.toUpperCase()}` });
  admin = await signup(t.app, ADMIN);
  unproven = await signup(t.app, UNPROVEN, undefined, { verify: false });
  alice = await signup(t.app, 'alice@example.org');
  bob = await signup(t.app, 'bob@example.org');
  aliceRoom = await createRoom(t.app, alice, undefined, { name: 'Harbour survey' });
  await addMember(t.app, alice, aliceRoom, bob, 'editor');
  // A stored file, so that storage counts something.
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="10"/></svg>';
  const res = await postMultipart(
    t.app,
    `/api/rooms/${aliceRoom}/marker-icons`,
    { name: 'dot', size: '24', icon: { data: Buffer.from(svg), filename: 'dot.svg', type: 'image/svg+xml' } },
    alice.token,
  );
  assert.ok(res.statusCode < 300, res.body);
  assert.ok((await storedBytes(aliceRoom)) > 0);
});
after(async () => {
  await t?.close();
});

const get = (url: string, who: TestUser = admin) => call(t.app, 'GET', url, { auth: who.token });

describe('who is an admin', () => {
  test('GET /api/auth/me says admin for a confirmed address of ADMIN_EMAILS only', async () => {
    assert.equal(assertOk(await get('/api/auth/me')).user.admin, true);
    assert.equal(assertOk(await get('/api/auth/me', alice)).user.admin, false);
    // Anyone can sign up with any address: an unconfirmed one names nobody.
    assert.equal(assertOk(await get('/api/auth/me', unproven)).user.admin, false);
  });

  test("the identity provider's claim (users.provider_admin) names an admin too, until the account is disabled", async () => {
    const claimed = await signup(t.app, 'claimed@example.org');
    assertError(await get('/api/admin/users', claimed), 403, 'forbidden');
    // What the OpenID Connect sign-in records when the provider's claim names the user.
    const set = (values: { provider_admin: number }) =>
      t.database.db.updateTable('users').set(values).where('id', '=', claimed.id).execute();
    await set({ provider_admin: 1 });
    assertOk(await get('/api/admin/users', claimed));
    assert.equal(assertOk(await get('/api/auth/me', claimed)).user.admin, true);
    await set({ provider_admin: 0 });
    assertError(await get('/api/admin/users', claimed), 403, 'forbidden');
    // Out of the lists the other tests count.
    await t.database.db.updateTable('users').set({ deleted_at: Date.now() }).where('id', '=', claimed.id).execute();
  });

  test('every admin route: 401 anonymous, 403 forbidden for other sessions, 403 api_token_not_allowed for tokens', async () => {
    const { token } = await issueToken(t.app, alice, aliceRoom, ['read', 'write', 'upload']);
    const routes: [string, string][] = [
      ['GET', '/api/admin/users'],
      ['GET', '/api/admin/rooms'],
      ['GET', '/api/admin/jobs'],
      ['GET', '/api/admin/audit'],
      ['GET', '/api/admin/limits'],
      ['DELETE', `/api/admin/rooms/${aliceRoom}`],
      ['PUT', `/api/admin/rooms/${aliceRoom}/owner`],
      ['POST', `/api/admin/users/${bob.id}/disable`],
      ['POST', `/api/admin/users/${bob.id}/enable`],
      ['POST', `/api/admin/users/${bob.id}/password-reset`],
      ['DELETE', `/api/admin/users/${bob.id}`],
      ['POST', '/api/admin/jobs/some-job/retry'],
      ['POST', '/api/admin/jobs/some-job/cancel'],
    ];
    for (const [method, url] of routes) {
      assertError(await call(t.app, method as 'GET', url), 401, 'unauthorized');
      assertError(await call(t.app, method as 'GET', url, { auth: alice.token }), 403, 'forbidden');
      assertError(await call(t.app, method as 'GET', url, { auth: unproven.token }), 403, 'forbidden');
      assertError(await call(t.app, method as 'GET', url, { auth: token }), 403, 'api_token_not_allowed');
      assertError(
        await call(t.app, method as 'GET', url, { auth: alice.token, body: { userId: bob.id } }),
        403,
        'forbidden',
      );
    }
    assert.ok(TOKEN_ERRORS.invalid);
    // Nothing was done on the way.
    assertOk(await get(`/api/rooms/${aliceRoom}`, alice));
  });
});

describe('users', () => {
  test('each user with rooms owned, storage, state and times; deleted accounts left out', async () => {
    const { users, next } = assertOk(await get('/api/admin/users'));
    assert.equal(next, null);
    const byEmail = new Map(users.map((u: { email: string }) => [u.email, u]));
    const a = byEmail.get('alice@example.org') as Record<string, unknown>;
    assert.deepEqual(Object.keys(a).sort(), [
      'createdAt',
      'disabled',
      'email',
      'id',
      'lastSeenAt',
      'name',
      'roomsOwned',
      'storageBytes',
    ]);
    assert.equal(a.id, alice.id);
    assert.equal(a.roomsOwned, 1);
    assert.equal(a.disabled, false);
    assert.equal(typeof a.createdAt, 'number');
    const stored = await storedBytes(aliceRoom);
    assert.equal(a.storageBytes, stored);
    // Bob is a member, not an owner: nothing counts for him.
    assert.equal((byEmail.get('bob@example.org') as Record<string, unknown>).roomsOwned, 0);
    assert.equal((byEmail.get('bob@example.org') as Record<string, unknown>).storageBytes, 0);

    await t.database.db.updateTable('users').set({ deleted_at: Date.now() }).where('id', '=', bob.id).execute();
    const after = assertOk(await get('/api/admin/users'));
    assert.ok(!after.users.some((u: { id: string }) => u.id === bob.id));
    await t.database.db.updateTable('users').set({ deleted_at: null }).where('id', '=', bob.id).execute();
  });

  test('search over e-mail and name, any case; keyset pages that neither skip nor repeat', async () => {
    const found = assertOk(await get('/api/admin/users?q=ALICE'));
    assert.deepEqual(
      found.users.map((u: { id: string }) => u.id),
      [alice.id],
    );
    assert.deepEqual(assertOk(await get('/api/admin/users?q=%25')).users, [], 'a % matches itself only');
    const all = assertOk(await get('/api/admin/users?limit=100')).users.map((u: { id: string }) => u.id);
    assert.equal(all.length, 4);
    const paged: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const res: { users: { id: string }[]; next: string | null } = assertOk(
        await get(`/api/admin/users?limit=1${after ? `&after=${after}` : ''}`),
      );
      paged.push(...res.users.map((u) => u.id));
      after = res.next;
      if (!after) break;
    }
    assert.deepEqual(paged, all);
    assertError(await get('/api/admin/users?after=not-a-cursor'), 400, 'validation_error');
    assertError(await get('/api/admin/users?limit=0'), 400, 'validation_error');
  });
});

describe('rooms', () => {
  test('each room with owner, members, storage and last change; search by name or id; paging', async () => {
    const other = await createRoom(t.app, bob, undefined, { name: 'Bob Forest' });
    const before = Date.now();
    assertOk(
      await call(t.app, 'POST', `/api/rooms/${aliceRoom}/markers`, {
        auth: bob.token,
        body: { latitude: 46.9, longitude: 7.4, title: 'x' },
      }),
      201,
    );
    const { rooms, next } = assertOk(await get('/api/admin/rooms'));
    assert.equal(next, null);
    const room = rooms.find((r: { id: string }) => r.id === aliceRoom);
    assert.deepEqual(Object.keys(room).sort(), [
      'id',
      'members',
      'name',
      'ownerEmail',
      'ownerId',
      'storageBytes',
      'updatedAt',
    ]);
    assert.equal(room.name, 'Harbour survey');
    assert.equal(room.ownerId, alice.id);
    assert.equal(room.ownerEmail, alice.email);
    assert.equal(room.members, 2);
    assert.equal(room.storageBytes, await storedBytes(aliceRoom));
    assert.ok(room.updatedAt >= before, 'the marker is the last change');

    assert.deepEqual(
      assertOk(await get('/api/admin/rooms?q=harbour')).rooms.map((r: { id: string }) => r.id),
      [aliceRoom],
    );
    assert.deepEqual(
      assertOk(await get(`/api/admin/rooms?q=${other}`)).rooms.map((r: { id: string }) => r.id),
      [other],
    );
    const first = assertOk(await get('/api/admin/rooms?limit=1'));
    assert.equal(first.rooms.length, 1);
    const second = assertOk(await get(`/api/admin/rooms?limit=1&after=${first.next}`));
    assert.equal(second.next, null);
    assert.notEqual(second.rooms[0].id, first.rooms[0].id);
  });

  test('DELETE /api/admin/rooms/:roomId deletes the room and is in the audit list', async () => {
    const doomed = await createRoom(t.app, bob, undefined, { name: 'Doomed' });
    const res = await call(t.app, 'DELETE', `/api/admin/rooms/${doomed}`, { auth: admin.token });
    assert.equal(res.statusCode, 204, res.body);
    assertError(await get(`/api/rooms/${doomed}`, bob), 404, 'not_found');
    assertError(await call(t.app, 'DELETE', `/api/admin/rooms/${doomed}`, { auth: admin.token }), 404, 'not_found');
    const { entries } = assertOk(await get('/api/admin/audit'));
    assert.deepEqual(Object.keys(entries[0]).sort(), ['action', 'adminId', 'at', 'target']);
    assert.equal(entries[0].action, 'room.delete');
    assert.equal(entries[0].target, doomed);
    assert.equal(entries[0].adminId, admin.id);
  });
});

describe('limits and audit', () => {
  test('GET /api/admin/limits gives the settings with the largest use', async () => {
    const limits = assertOk(await get('/api/admin/limits'));
    assert.equal(limits.maxRoomsPerUser, 0);
    assert.equal(limits.storageQuotaBytes, t.config.storageQuotaBytes);
    assert.ok(limits.mostRoomsOwned >= 1);
    assert.equal(limits.mostStorageBytes, await storedBytes(aliceRoom));
  });

  test('the audit list pages newest first', async () => {
    for (let i = 0; i < 3; i++) {
      const room = await createRoom(t.app, bob);
      assert.equal((await call(t.app, 'DELETE', `/api/admin/rooms/${room}`, { auth: admin.token })).statusCode, 204);
    }
    const all = assertOk(await get('/api/admin/audit?limit=100')).entries;
    assert.ok(all.length >= 4);
    for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].at >= all[i].at);
    const one = assertOk(await get('/api/admin/audit?limit=2'));
    const two = assertOk(await get(`/api/admin/audit?limit=2&after=${one.next}`));
    assert.deepEqual([...one.entries, ...two.entries], all.slice(0, 4));
  });
});

/** Bytes a room stores, as the quota counts them. */
async function storedBytes(roomId: string): Promise<number> {
  const files = await t.database.db.selectFrom('stored_files').select('bytes').where('room_id', '=', roomId).execute();
  return files.reduce((n, f) => n + Number(f.bytes), 0);
}
