import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assertError,
  assertOk,
  call,
  followVerificationLink,
  PASSWORD,
  type Scaffold,
  scaffold,
  signup,
  uniqueEmail,
} from '../helpers.js';
import { LiveClient } from '../support/live-client.js';

/**
 * What ends with a session or an account besides its requests (decisions: "Sessions that
 * end"): logging out closes the session's open live sockets; deleting an account drops the
 * invitations to its address, so a new account with the address does not inherit them.
 */

let s: Scaffold<'owner', never, true>;
const clients: LiveClient[] = [];
before(async () => {
  s = await scaffold({ users: ['owner'], rooms: [], listen: true });
});
after(async () => {
  for (const client of clients) client.ws.terminate();
  await s.t.close();
});

test('logging out closes the live sockets of the session', async () => {
  const user = await signup(s.t.app, uniqueEmail('socket'));
  const room = `sock${Date.now().toString(36)}`.slice(0, 10).padEnd(10, '0');
  assertOk(await call(s.t.app, 'POST', `/api/rooms/${room}`, { auth: user.token, body: {} }));
  const live = new LiveClient(`${s.wsBase}/api/rooms/${room}/live?access_token=${user.token}`);
  clients.push(live);
  await live.at(0);
  assert.equal((await call(s.t.app, 'POST', '/api/auth/logout', { auth: user.token })).statusCode, 204);
  await live.closedWithin();
});

test("a deleted account's pending invitations are not inherited by a new account with its address", async () => {
  const email = uniqueEmail('invited');
  const first = await signup(s.t.app, email, PASSWORD, { verify: false });
  const room = `inv${Date.now().toString(36)}`.slice(0, 10).padEnd(10, '0');
  assertOk(await call(s.t.app, 'POST', `/api/rooms/${room}`, { auth: s.users.owner.token, body: {} }));
  const invited = await call(s.t.app, 'POST', `/api/rooms/${room}/invite`, {
    auth: s.users.owner.token,
    body: { email, role: 'editor' },
  });
  assert.equal(invited.statusCode, 200, invited.body);
  const deleted = await call(s.t.app, 'DELETE', '/api/auth/me', { auth: first.token, body: { password: PASSWORD } });
  assert.equal(deleted.statusCode, 204, deleted.body);

  const next = await signup(s.t.app, email, 'someone else now', { verify: false });
  await followVerificationLink(s.t.app, email);
  assertError(await call(s.t.app, 'GET', `/api/rooms/${room}`, { auth: next.token }), 403, 'forbidden');
});
