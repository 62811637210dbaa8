/**
 * The limits per user: MAX_ROOMS_PER_USER refuses a room beyond it (403 room_limit_reached,
 * the documented error body), STORAGE_QUOTA_BYTES refuses stored files beyond the total
 * of the rooms one user owns (413 quota_exceeded, as STORAGE_QUOTA_BYTES does).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  postMultipart,
  signup,
  type TestApp,
  type TestUser,
  uniqueRoomId,
  buildTestApp,
} from '../helpers.js';

const ADMIN = 'limits-admin@example.org';
const svg = (n: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="${n}"/>${' '.repeat(200)}</svg>`;

let t: TestApp;
let owner: TestUser;
let admin: TestUser;

before(async () => {
  t = await buildTestApp({ maxRoomsPerUser: 2, storageQuotaBytes: 600, adminEmails: ADMIN });
  owner = await signup(t.app);
  admin = await signup(t.app, ADMIN);
});
after(async () => {
  await t?.close();
});

const icon = (roomId: string, n: number) =>
  postMultipart(
    t.app,
    `/api/rooms/${roomId}/marker-icons`,
    { name: `dot ${n}`, size: '24', icon: { data: Buffer.from(svg(n)), filename: 'dot.svg', type: 'image/svg+xml' } },
    owner.token,
  );

test('MAX_ROOMS_PER_USER: the room beyond it is refused with room_limit_reached; an existing one still answers', async () => {
  const first = await createRoom(t.app, owner);
  const second = await createRoom(t.app, owner);
  const res = await call(t.app, 'POST', `/api/rooms/${uniqueRoomId()}`, { auth: owner.token, body: {} });
  assertError(res, 403, 'room_limit_reached');
  assert.deepEqual(res.json().details, { maxRoomsPerUser: 2 });
  assert.match(res.json().message, /You own 2 rooms/);
  // Asking for a room that exists creates nothing, so it is not refused.
  assert.equal(
    assertOk(await call(t.app, 'POST', `/api/rooms/${first}`, { auth: owner.token, body: {} })).isNewRoom,
    false,
  );
  // Another user has rooms of their own to make.
  await createRoom(t.app, admin);
  // Deleting one makes room for the next.
  assertOk(await call(t.app, 'DELETE', `/api/rooms/${second}`, { auth: owner.token }));
  await createRoom(t.app, owner);
  const limits = assertOk(await call(t.app, 'GET', '/api/admin/limits', { auth: admin.token }));
  assert.equal(limits.maxRoomsPerUser, 2);
  assert.equal(limits.mostRoomsOwned, 2);
});

test("STORAGE_QUOTA_BYTES: files beyond the owner's total over their rooms are 413 quota_exceeded", async () => {
  const rooms = assertOk(await call(t.app, 'GET', '/api/rooms', { auth: owner.token })).rooms.map(
    (r: { roomId?: string; id?: string }) => r.roomId ?? r.id,
  );
  assert.equal(rooms.length, 2);
  const [a, b] = rooms as string[];
  assert.equal((await icon(a, 1)).statusCode, 201);
  assert.equal((await icon(a, 2)).statusCode, 201);
  // The third file does not fit, in either room: the limit is the owner's.
  const refused = await icon(b, 3);
  assertError(refused, 413, 'quota_exceeded');
  const { details } = refused.json();
  assert.ok(details.neededBytes > 0);
  assert.ok(details.availableBytes < details.neededBytes);
  const limits = assertOk(await call(t.app, 'GET', '/api/admin/limits', { auth: admin.token }));
  assert.equal(limits.storageQuotaBytes, 600);
  assert.ok(limits.mostStorageBytes > 300 && limits.mostStorageBytes <= 600);
});
