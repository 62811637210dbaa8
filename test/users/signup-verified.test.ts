import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assertError,
  buildTestApp,
  call,
  followVerificationLink,
  PASSWORD,
  signup,
  uniqueEmail,
  uniqueRoomId,
} from '../helpers.js';

/**
 * When the sign-up policy limits who may sign up (SIGNUP not open, SIGNUP_DOMAINS), it looked
 * at an address nobody had proven: such an account makes no room until it confirms the
 * address (decisions: "Sign-up policy"). With an open policy, nothing waits for it.
 */

const create = (app: Awaited<ReturnType<typeof buildTestApp>>['app'], auth: string, roomId = uniqueRoomId()) =>
  call(app, 'POST', `/api/rooms/${roomId}`, { auth, body: {} });

test('with SIGNUP_DOMAINS, an unconfirmed account makes a room only once it follows its link', async () => {
  const t = await buildTestApp({ signupDomains: 'example.com' });
  try {
    const user = await signup(t.app, uniqueEmail('unproven'), PASSWORD, { verify: false });
    const refused = assertError(await create(t.app, user.token), 403, 'email_not_verified');
    assert.match(refused.message, /Confirm your e-mail address/);
    await followVerificationLink(t.app, user.email);
    assert.equal((await create(t.app, user.token)).statusCode, 200);
  } finally {
    await t.close();
  }
});

test('with an open sign-up, an unconfirmed account makes rooms', async () => {
  const t = await buildTestApp();
  try {
    const user = await signup(t.app, uniqueEmail('open'), PASSWORD, { verify: false });
    assert.equal((await create(t.app, user.token)).statusCode, 200);
  } finally {
    await t.close();
  }
});
