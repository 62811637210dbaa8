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
  signup,
  type TestApp,
  type TestUser,
  uniqueEmail,
  uniqueRoomId,
} from '../helpers.js';

interface Member {
  userId: string;
  email: string;
  role: string;
  addedAt?: number;
  addedBy?: string;
}
interface Invitation {
  email: string;
  role: string;
  invitedAt: number;
  invitedBy: string;
}

let t: TestApp;
let owner: TestUser;
let editor: TestUser;
let viewer: TestUser;
let stranger: TestUser;
/** A private room owned by `owner` with `editor` and `viewer` as members. */
let room: string;

before(async () => {
  ({
    t,
    users: { owner, editor, viewer, stranger },
    room,
  } = await scaffold());
});
after(() => t.close());

async function members(roomId: string, user: TestUser = owner): Promise<Member[]> {
  const res = await call(t.app, 'GET', `/api/rooms/${roomId}/members`, { auth: user.token });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.ok(Array.isArray(body), `members is an array: ${res.body}`);
  return body;
}

async function pendingOf(roomId: string): Promise<Invitation[]> {
  const res = await call(t.app, 'GET', `/api/rooms/${roomId}/pending-invitations`, { auth: owner.token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().invitations;
}

async function myRooms(user: TestUser): Promise<Array<{ roomId: string; role: string }>> {
  const res = await call(t.app, 'GET', '/api/rooms', { auth: user.token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().rooms;
}

const invite = (roomId: string, email: string, role: unknown, auth = owner.token) =>
  call(t.app, 'POST', `/api/rooms/${roomId}/invite`, { auth, body: { email, role } });

describe('GET /api/rooms/:roomId/members', () => {
  test('every member sees the list: owner with addedAt and no addedBy, added members with addedBy', async () => {
    for (const user of [owner, editor, viewer]) {
      const list = await members(room, user);
      assert.equal(list.length, 3);
      const byId = new Map(list.map((m) => [m.userId, m]));

      const o = byId.get(owner.id);
      assert.ok(o, 'owner is listed');
      assert.equal(o.role, 'owner');
      assert.equal(o.email, owner.email);
      assert.equal(typeof o.addedAt, 'number');
      assert.ok(!('addedBy' in o), `the owner has no addedBy: ${JSON.stringify(o)}`);

      const e = byId.get(editor.id);
      assert.ok(e, 'editor is listed');
      assert.equal(e.role, 'editor');
      assert.equal(e.email, editor.email);
      assert.equal(e.addedBy, owner.id);
      assert.equal(typeof e.addedAt, 'number');

      const v = byId.get(viewer.id);
      assert.ok(v, 'viewer is listed');
      assert.equal(v.role, 'viewer');
      assert.equal(v.email, viewer.email);
      assert.equal(v.addedBy, owner.id);
    }
  });

  test('a non-member is 403, anonymous on a public room 401, a room token 403 api_token_not_allowed', async () => {
    const pub = await createRoom(t.app, owner, uniqueRoomId(), { isPublic: true });
    assertError(await call(t.app, 'GET', `/api/rooms/${room}/members`, { auth: stranger.token }), 403, 'forbidden');
    assertError(await call(t.app, 'GET', `/api/rooms/${pub}/members`, { auth: stranger.token }), 403, 'forbidden');
    assertError(await call(t.app, 'GET', `/api/rooms/${pub}/members`), 401, 'unauthorized');
    const tok = await issueToken(t.app, owner, room, ['read', 'write', 'upload']);
    assertError(
      await call(t.app, 'GET', `/api/rooms/${room}/members`, { auth: tok.token }),
      403,
      'api_token_not_allowed',
    );
  });
});

describe('POST /api/rooms/:roomId/invite', () => {
  test('an existing user is added at once, with the role, and the room joins their list', async () => {
    const r = await createRoom(t.app, owner);
    const res = await invite(r, stranger.email, 'editor');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status, 'added');

    const m = (await members(r)).find((x) => x.userId === stranger.id);
    assert.ok(m, 'the invitee is a member');
    assert.equal(m.role, 'editor');
    assert.equal(m.addedBy, owner.id);
    assert.deepEqual(await pendingOf(r), [], 'no pending invitation is left for an existing user');

    const mine = (await myRooms(stranger)).find((x) => x.roomId === r);
    assert.ok(mine, "the room is in the invitee's list");
    assert.equal(mine.role, 'editor');

    const meta = await call(t.app, 'GET', `/api/rooms/${r}`, { auth: stranger.token });
    assert.equal(meta.statusCode, 200, meta.body);
    assert.equal(meta.json().userRole, 'editor');
  });

  test('an existing user is found by e-mail case-insensitively', async () => {
    const r = await createRoom(t.app, owner);
    const shouted = stranger.email.toUpperCase();
    const res = await invite(r, shouted, 'viewer');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status, 'added');
    const m = (await members(r)).find((x) => x.userId === stranger.id);
    assert.ok(m);
    assert.equal(m.role, 'viewer');
    assert.deepEqual(await pendingOf(r), []);
  });

  test('an unknown e-mail gets a pending invitation listed for the owner', async () => {
    const r = await createRoom(t.app, owner);
    const email = uniqueEmail('nobody-yet');
    const res = await invite(r, email, 'viewer');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status, 'pending');

    const pending = await pendingOf(r);
    assert.equal(pending.length, 1);
    const [inv] = pending;
    assert.deepEqual(Object.keys(inv!).sort(), ['email', 'invitedAt', 'invitedBy', 'role']);
    assert.equal(inv!.email, email);
    assert.equal(inv!.role, 'viewer');
    assert.equal(inv!.invitedBy, owner.id);
    assert.equal(typeof inv!.invitedAt, 'number');
    // Not a member yet.
    assert.equal((await members(r)).length, 1);
  });

  test('re-inviting a pending e-mail with another role updates the role (matched case-insensitively)', async () => {
    const r = await createRoom(t.app, owner);
    const email = uniqueEmail('change-role');
    assert.equal((await invite(r, email, 'viewer')).statusCode, 200);
    const again = await invite(r, email.toUpperCase(), 'editor');
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().status, 'pending');

    const pending = await pendingOf(r);
    assert.equal(pending.length, 1, `one invitation, not two: ${JSON.stringify(pending)}`);
    assert.equal(pending[0]!.email.toLowerCase(), email.toLowerCase());
    assert.equal(pending[0]!.role, 'editor');
  });

  test('role owner, admin or missing is 400', async () => {
    for (const role of ['owner', 'admin', 'Editor', '', 1]) {
      assertValidation(await invite(room, uniqueEmail('bad-role'), role), 'role');
    }
    const missing = await call(t.app, 'POST', `/api/rooms/${room}/invite`, {
      auth: owner.token,
      body: { email: uniqueEmail() },
    });
    assertValidation(missing, 'role');
    assert.deepEqual(await pendingOf(room), []);
  });

  test('an invalid e-mail is 400', async () => {
    for (const email of ['not-an-email', 'a@', '@example.com', '']) {
      assertValidation(await invite(room, email, 'viewer'), 'email');
    }
    const missing = await call(t.app, 'POST', `/api/rooms/${room}/invite`, {
      auth: owner.token,
      body: { role: 'viewer' },
    });
    assertValidation(missing, 'email');
    assert.deepEqual(await pendingOf(room), []);
  });

  test('inviting an existing member is 409 already_member and leaves the role unchanged', async () => {
    assertError(await invite(room, editor.email, 'viewer'), 409, 'already_member');
    assertError(await invite(room, viewer.email.toUpperCase(), 'editor'), 409, 'already_member');
    assertError(await invite(room, owner.email, 'viewer'), 409, 'already_member');
    const list = await members(room);
    assert.equal(list.find((m) => m.userId === editor.id)?.role, 'editor');
    assert.equal(list.find((m) => m.userId === viewer.id)?.role, 'viewer');
    assert.equal(list.find((m) => m.userId === owner.id)?.role, 'owner');
  });

  test('editors and viewers may not invite (403); anonymous 401; a room token 403 api_token_not_allowed', async () => {
    const email = uniqueEmail('by-member');
    assertError(await invite(room, email, 'viewer', editor.token), 403, 'forbidden');
    assertError(await invite(room, email, 'viewer', viewer.token), 403, 'forbidden');
    assertError(await invite(room, stranger.email, 'viewer', stranger.token), 403, 'forbidden');
    assertError(
      await call(t.app, 'POST', `/api/rooms/${room}/invite`, { body: { email, role: 'viewer' } }),
      401,
      'unauthorized',
    );
    const tok = await issueToken(t.app, owner, room, ['read', 'write', 'upload']);
    assertError(await invite(room, email, 'viewer', tok.token), 403, 'api_token_not_allowed');
    assert.deepEqual(await pendingOf(room), []);
    assert.equal((await members(room)).length, 3);
  });
});

describe('invitations addressed to the signed-in user', () => {
  test('a user with no invitations gets an empty list', async () => {
    const res = await call(t.app, 'GET', '/api/users/pending-invitations', { auth: stranger.token });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().invitations, []);
  });

  test('anonymous is 401', async () => {
    assertError(await call(t.app, 'GET', '/api/users/pending-invitations'), 401, 'unauthorized');
  });

  test('an invitation for the caller is listed and accepted; a second accept is 404', async () => {
    const invitee = await signup(t.app, uniqueEmail('accepter'));
    const r = await createRoom(t.app, owner);
    const other = await createRoom(t.app, owner);
    // An existing user is added at once by /invite, so arrange the pending state directly.
    await t.database.db
      .insertInto('pending_invitations')
      .values({ room_id: r, email: invitee.email, role: 'editor', invited_at: Date.now(), invited_by: owner.id })
      .execute();

    const listed = await call(t.app, 'GET', '/api/users/pending-invitations', { auth: invitee.token });
    assert.equal(listed.statusCode, 200, listed.body);
    const invitations = listed.json().invitations;
    assert.equal(invitations.length, 1, listed.body);
    assert.equal(invitations[0].roomId, r);
    assert.equal(invitations[0].role, 'editor');
    // Someone else does not see it.
    const others = await call(t.app, 'GET', '/api/users/pending-invitations', { auth: stranger.token });
    assert.deepEqual(others.json().invitations, []);

    // An invitation of another room does not let the invitee into this one.
    assertError(
      await call(t.app, 'POST', `/api/rooms/${other}/accept-invitation`, { auth: invitee.token }),
      404,
      'not_found',
    );
    // Someone without an invitation cannot accept it.
    assertError(
      await call(t.app, 'POST', `/api/rooms/${r}/accept-invitation`, { auth: stranger.token }),
      404,
      'not_found',
    );
    assert.equal(
      (await members(r)).some((m) => m.userId === stranger.id),
      false,
    );

    const accepted = await call(t.app, 'POST', `/api/rooms/${r}/accept-invitation`, { auth: invitee.token });
    assert.equal(accepted.statusCode, 200, accepted.body);

    const m = (await members(r)).find((x) => x.userId === invitee.id);
    assert.ok(m, 'the invitee is now a member');
    assert.equal(m.role, 'editor');
    assert.equal(m.addedBy, owner.id);
    assert.equal((await myRooms(invitee)).find((x) => x.roomId === r)?.role, 'editor');
    assert.deepEqual(await pendingOf(r), []);
    const after = await call(t.app, 'GET', '/api/users/pending-invitations', { auth: invitee.token });
    assert.deepEqual(after.json().invitations, []);

    assertError(
      await call(t.app, 'POST', `/api/rooms/${r}/accept-invitation`, { auth: invitee.token }),
      404,
      'not_found',
    );
    assert.equal((await members(r)).find((x) => x.userId === invitee.id)?.role, 'editor');
  });

  test('accept-invitation refuses a room token and anonymous callers', async () => {
    const tok = await issueToken(t.app, owner, room, ['read', 'write', 'upload']);
    assertError(
      await call(t.app, 'POST', `/api/rooms/${room}/accept-invitation`, { auth: tok.token }),
      403,
      'api_token_not_allowed',
    );
    assertError(await call(t.app, 'POST', `/api/rooms/${room}/accept-invitation`), 401, 'unauthorized');
  });
});

describe('DELETE /api/rooms/:roomId/pending-invitations/:email', () => {
  test('revokes the invitation: a later signup with that e-mail gets no membership', async () => {
    const r = await createRoom(t.app, owner);
    const email = uniqueEmail('revoked');
    const keep = uniqueEmail('kept');
    assert.equal((await invite(r, email, 'editor')).statusCode, 200);
    assert.equal((await invite(r, keep, 'viewer')).statusCode, 200);

    const del = await call(t.app, 'DELETE', `/api/rooms/${r}/pending-invitations/${encodeURIComponent(email)}`, {
      auth: owner.token,
    });
    assert.equal(del.statusCode, 200, del.body);
    assert.deepEqual(
      (await pendingOf(r)).map((i) => i.email),
      [keep],
    );

    const late = await signup(t.app, email);
    assert.equal(
      (await myRooms(late)).some((x) => x.roomId === r),
      false,
    );
    assert.equal(
      (await members(r)).some((m) => m.userId === late.id),
      false,
    );
    assertError(await call(t.app, 'GET', `/api/rooms/${r}`, { auth: late.token }), 403, 'forbidden');
  });

  test('an e-mail with a plus sign works URL-encoded, and the match is case-insensitive', async () => {
    const r = await createRoom(t.app, owner);
    const email = `first+tag-${Date.now().toString(36)}@example.com`;
    assert.equal((await invite(r, email, 'viewer')).statusCode, 200);
    const other = `second+tag-${Date.now().toString(36)}@example.com`;
    assert.equal((await invite(r, other, 'viewer')).statusCode, 200);

    const encoded = encodeURIComponent(email);
    assert.ok(encoded.includes('%2B') && encoded.includes('%40'));
    const del = await call(t.app, 'DELETE', `/api/rooms/${r}/pending-invitations/${encoded}`, { auth: owner.token });
    assert.equal(del.statusCode, 200, del.body);
    assert.deepEqual(
      (await pendingOf(r)).map((i) => i.email),
      [other],
    );

    const upper = encodeURIComponent(other.toUpperCase());
    const del2 = await call(t.app, 'DELETE', `/api/rooms/${r}/pending-invitations/${upper}`, { auth: owner.token });
    assert.equal(del2.statusCode, 200, del2.body);
    assert.deepEqual(await pendingOf(r), []);
  });

  test('an unknown e-mail is 404', async () => {
    const email = encodeURIComponent(uniqueEmail('never-invited'));
    assertError(
      await call(t.app, 'DELETE', `/api/rooms/${room}/pending-invitations/${email}`, { auth: owner.token }),
      404,
      'not_found',
    );
  });

  test('only the owner may list or revoke pending invitations', async () => {
    const r = await createRoom(t.app, owner);
    await addMember(t.app, owner, r, editor, 'editor');
    const email = uniqueEmail('protected');
    assert.equal((await invite(r, email, 'viewer')).statusCode, 200);
    const url = `/api/rooms/${r}/pending-invitations/${encodeURIComponent(email)}`;
    assertError(await call(t.app, 'DELETE', url, { auth: editor.token }), 403, 'forbidden');
    assertError(
      await call(t.app, 'GET', `/api/rooms/${r}/pending-invitations`, { auth: editor.token }),
      403,
      'forbidden',
    );
    assertError(await call(t.app, 'DELETE', url), 401, 'unauthorized');
    assert.deepEqual(
      (await pendingOf(r)).map((i) => i.email),
      [email],
    );
  });
});

describe('DELETE /api/rooms/:roomId/members/:userId', () => {
  test('removes an editor and a viewer: the room leaves their list and they lose access', async () => {
    const r = await createRoom(t.app, owner);
    await addMember(t.app, owner, r, editor, 'editor');
    await addMember(t.app, owner, r, viewer, 'viewer');
    assert.equal((await myRooms(editor)).find((x) => x.roomId === r)?.role, 'editor');

    for (const user of [editor, viewer]) {
      const res = await call(t.app, 'DELETE', `/api/rooms/${r}/members/${user.id}`, { auth: owner.token });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { success: true, userId: user.id });

      assert.equal(
        (await members(r)).some((m) => m.userId === user.id),
        false,
      );
      assert.equal(
        (await myRooms(user)).some((x) => x.roomId === r),
        false,
      );
      assertError(await call(t.app, 'GET', `/api/rooms/${r}`, { auth: user.token }), 403, 'forbidden');
      assertError(await call(t.app, 'GET', `/api/rooms/${r}/members`, { auth: user.token }), 403, 'forbidden');
    }
    assert.deepEqual(
      (await members(r)).map((m) => m.userId),
      [owner.id],
    );

    // Removing again: not a member any more.
    assertError(
      await call(t.app, 'DELETE', `/api/rooms/${r}/members/${editor.id}`, { auth: owner.token }),
      404,
      'not_found',
    );
  });

  test('the owner can never be removed', async () => {
    const res = await call(t.app, 'DELETE', `/api/rooms/${room}/members/${owner.id}`, { auth: owner.token });
    assertError(res, 403, 'forbidden');
    const o = (await members(room)).find((m) => m.userId === owner.id);
    assert.ok(o, 'the owner is still listed');
    assert.equal(o.role, 'owner');
    const mine = (await myRooms(owner)).find((x) => x.roomId === room);
    assert.equal(mine?.role, 'owner');
  });

  test('an unknown user or a non-member is 404', async () => {
    assertError(
      await call(t.app, 'DELETE', `/api/rooms/${room}/members/user-does-not-exist`, { auth: owner.token }),
      404,
      'not_found',
    );
    assertError(
      await call(t.app, 'DELETE', `/api/rooms/${room}/members/${stranger.id}`, { auth: owner.token }),
      404,
      'not_found',
    );
  });

  test('editors, viewers, anonymous callers and room tokens may not remove members', async () => {
    const url = (u: TestUser) => `/api/rooms/${room}/members/${u.id}`;
    assertError(await call(t.app, 'DELETE', url(viewer), { auth: editor.token }), 403, 'forbidden');
    assertError(await call(t.app, 'DELETE', url(editor), { auth: editor.token }), 403, 'forbidden');
    assertError(await call(t.app, 'DELETE', url(editor), { auth: viewer.token }), 403, 'forbidden');
    assertError(await call(t.app, 'DELETE', url(owner), { auth: editor.token }), 403, 'forbidden');
    assertError(await call(t.app, 'DELETE', url(viewer)), 401, 'unauthorized');
    const tok = await issueToken(t.app, owner, room, ['read', 'write', 'upload']);
    assertError(await call(t.app, 'DELETE', url(viewer), { auth: tok.token }), 403, 'api_token_not_allowed');

    const list = await members(room);
    assert.deepEqual(list.map((m) => m.userId).sort(), [owner.id, editor.id, viewer.id].sort());
  });
});

describe('signup accepts pending invitations', () => {
  test('with the invited role, in every room that invited the e-mail', async () => {
    const a = await createRoom(t.app, owner);
    const b = await createRoom(t.app, owner);
    const email = uniqueEmail('newcomer');
    assert.equal((await invite(a, email, 'editor')).json().status, 'pending');
    assert.equal((await invite(b, email, 'viewer')).json().status, 'pending');

    const newcomer = await signup(t.app, email);
    const mine = await myRooms(newcomer);
    assert.equal(mine.find((x) => x.roomId === a)?.role, 'editor');
    assert.equal(mine.find((x) => x.roomId === b)?.role, 'viewer');

    const m = (await members(a)).find((x) => x.userId === newcomer.id);
    assert.ok(m);
    assert.equal(m.role, 'editor');
    assert.equal(m.addedBy, owner.id);
    assert.deepEqual(await pendingOf(a), []);
    assert.deepEqual(await pendingOf(b), []);

    const meta = await call(t.app, 'GET', `/api/rooms/${a}`, { auth: newcomer.token });
    assert.equal(meta.statusCode, 200, meta.body);
    assert.equal(meta.json().userRole, 'editor');
  });

  test("with the changed role after a re-invite, and regardless of the e-mail's case", async () => {
    const r = await createRoom(t.app, owner);
    const email = uniqueEmail('promoted');
    assert.equal((await invite(r, email.toUpperCase(), 'viewer')).statusCode, 200);
    assert.equal((await invite(r, email, 'editor')).statusCode, 200);

    const promoted = await signup(t.app, email);
    assert.equal((await myRooms(promoted)).find((x) => x.roomId === r)?.role, 'editor');
    assert.equal((await members(r)).find((x) => x.userId === promoted.id)?.role, 'editor');
    assert.deepEqual(await pendingOf(r), []);
  });
});
