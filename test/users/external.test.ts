import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertError, call, scaffold, signup, type TestApp, uniqueEmail, uniqueRoomId } from '../helpers.js';
import { membersOf, roomsOf } from '../support/accounts.js';
import { type Idp, startIdp, trusting } from '../support/idp.js';

/**
 * Accounts: an external identity provider is trusted beside the built-in accounts, and its
 * users take up their pending invitations.
 */

let idp: Idp;
/** An app that trusts `idp`. */
let ext: TestApp;
before(async () => {
  idp = await startIdp();
  ({ t: ext } = await scaffold({ config: trusting(idp), users: [], rooms: [] }));
});
after(async () => {
  await ext?.close();
  await idp?.close();
});

// ---------------------------------------------------------------------------------------
// External identity provider

test('an external identity provider is trusted: sub becomes the user id and email the e-mail', async () => {
  const sub = `idp|${uniqueRoomId()}`;
  const email = uniqueEmail('external');
  const token = await idp.sign({ sub, email });

  const me = await call(ext.app, 'GET', '/api/auth/me', { auth: token });
  assert.equal(me.statusCode, 200, me.body);
  assert.equal(me.json().user.id, sub);
  assert.equal(me.json().user.email, email);

  const roomId = uniqueRoomId();
  const created = await call(ext.app, 'POST', `/api/rooms/${roomId}`, { auth: token, body: { name: 'IdP room' } });
  assert.equal(created.statusCode, 200, created.body);
  assert.equal(created.json().success, true);
  assert.equal(created.json().isNewRoom, true);
  assert.equal(created.json().room.roomId, roomId);
  assert.equal(created.json().room.createdBy, sub);

  const meta = await call(ext.app, 'GET', `/api/rooms/${roomId}`, { auth: token });
  assert.equal(meta.statusCode, 200);
  assert.equal(meta.json().createdBy, sub);
  assert.equal(meta.json().userRole, 'owner');
  const mine = await call(ext.app, 'GET', '/api/rooms', { auth: token });
  assert.deepEqual(
    mine.json().rooms.map((r: any) => [r.roomId, r.role]),
    [[roomId, 'owner']],
  );

  // Wrong audience, another key, wrong issuer: 401.
  const wrongAudience = await idp.sign({ sub, email }, { audience: 'someone-else' });
  assertError(await call(ext.app, 'GET', '/api/auth/me', { auth: wrongAudience }), 401, 'unauthorized');
  const foreignKey = await idp.sign({ sub, email }, { foreign: true });
  assertError(await call(ext.app, 'GET', '/api/auth/me', { auth: foreignKey }), 401, 'unauthorized');
  assertError(
    await call(ext.app, 'POST', `/api/rooms/${uniqueRoomId()}`, { auth: foreignKey, body: {} }),
    401,
    'unauthorized',
  );
  const wrongIssuer = await idp.sign({ sub, email }, { issuer: 'https://evil.test' });
  assertError(await call(ext.app, 'GET', '/api/auth/me', { auth: wrongIssuer }), 401, 'unauthorized');

  // Built-in accounts keep working beside the external provider.
  const local = await signup(ext.app);
  const localMe = await call(ext.app, 'GET', '/api/auth/me', { auth: local.token });
  assert.equal(localMe.statusCode, 200);
  assert.equal(localMe.json().user.id, local.id);
});

test('a pending invitation becomes a membership on the first request of an external identity', async () => {
  const ownerToken = await idp.sign({ sub: `owner-${uniqueRoomId()}`, email: uniqueEmail('extowner') });
  const roomId = uniqueRoomId();
  assert.equal((await call(ext.app, 'POST', `/api/rooms/${roomId}`, { auth: ownerToken, body: {} })).statusCode, 200);

  const email = uniqueEmail('extinvitee');
  const invite = await call(ext.app, 'POST', `/api/rooms/${roomId}/invite`, {
    auth: ownerToken,
    body: { email, role: 'viewer' },
  });
  assert.equal(invite.statusCode, 200, invite.body);
  assert.equal(invite.json().status, 'pending');

  const sub = `invitee-${uniqueRoomId()}`;
  // Only an address the provider vouches for takes up invitations.
  const unproven = { token: await idp.sign({ sub, email }) };
  assert.deepEqual(await roomsOf(ext.app, unproven), []);
  // A token of a later second is a new sign-in (a provider's `iat` is in whole seconds).
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const invitee = { token: await idp.sign({ sub, email: email.toUpperCase(), email_verified: true }) };
  const rooms = await roomsOf(ext.app, invitee);
  assert.deepEqual(
    rooms.map((r) => [r.roomId, r.role]),
    [[roomId, 'viewer']],
  );
  const members = await membersOf(ext.app, invitee, roomId);
  const entry = members.find((m) => m.userId === sub);
  assert.ok(entry, 'the external user is a member under its sub');
  assert.equal(entry.email, email);
  assert.equal(entry.role, 'viewer');
});
