import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  followVerificationLink,
  issueToken,
  mailboxOf,
  PASSWORD,
  scaffoldSuite,
  signup,
  uniqueEmail,
} from '../helpers.js';
import { verificationToken } from '../support/mailbox.js';

/**
 * Built-in accounts prove their address by a link sent by e-mail; only a proven address
 * accepts invitations (docs/contract-decisions.md, Users and sessions). Mail is read from the test mailbox
 * here; test/infra/mail-smtp.test.ts sends it through a real SMTP server.
 */

const s = scaffoldSuite({ users: [], rooms: [], config: { publicUrl: 'https://maps.example.org/' } });

const roomsOf = async (auth: string) =>
  assertOk(await call(s.t.app, 'GET', '/api/rooms', { auth })).rooms as { roomId: string; role: string }[];
const me = async (auth: string) => assertOk(await call(s.t.app, 'GET', '/api/auth/me', { auth })).user;
const verify = (token: string) => call(s.t.app, 'POST', '/api/auth/verify-email', { body: { token } });
const resend = (auth: string) => call(s.t.app, 'POST', '/api/auth/resend-verification', { auth });
const confirmationMail = (email: string) => mailboxOf(s.t.app).waitFor(email, /Confirm your e-mail address/);

describe('confirming an address', () => {
  test('sign-up mails a link to the page of the web app; the secret is kept only as a hash', async () => {
    const email = uniqueEmail('fresh');
    const user = await signup(s.t.app, email, PASSWORD, { verify: false });
    assert.equal((await me(user.token)).emailVerified, false);
    const mail = await confirmationMail(email);
    assert.equal(mail.to, email);
    assert.match(mail.text, /https:\/\/maps\.example\.org\/verify-email\?token=[A-Za-z0-9_-]{43}\b/);
    const secret = verificationToken(mail);
    const rows = await s.t.database.db
      .selectFrom('email_verifications')
      .selectAll()
      .where('user_id', '=', user.id)
      .execute();
    assert.equal(rows.length, 1);
    assert.notEqual(rows[0]!.token_hash, secret);
    assert.ok(!JSON.stringify(rows).includes(secret), 'the secret is not stored');
    assert.equal(rows[0]!.expires_at - rows[0]!.created_at, 24 * 3600 * 1000);

    const answer = assertOk(await verify(secret));
    assert.deepEqual(answer, { success: true, user: { id: user.id, email, name: null, emailVerified: true } });
    assert.equal((await me(user.token)).emailVerified, true);
  });

  test('a link works once; a mistyped or expired one is 400 invalid_token', async () => {
    const email = uniqueEmail('once');
    const user = await signup(s.t.app, email, PASSWORD, { verify: false });
    const secret = verificationToken(await confirmationMail(email));
    const mistyped = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
    assertError(await verify(mistyped), 400, 'invalid_token');
    assertOk(await verify(secret));
    assertError(await verify(secret), 400, 'invalid_token');

    const late = await signup(s.t.app, uniqueEmail('late'), PASSWORD, { verify: false });
    const lateSecret = verificationToken(await confirmationMail(late.email));
    await s.t.database.db
      .updateTable('email_verifications')
      .set({ expires_at: Date.now() - 1 })
      .where('user_id', '=', late.id)
      .execute();
    assertError(await verify(lateSecret), 400, 'invalid_token');
    assert.equal((await me(late.token)).emailVerified, false);
    assert.equal((await me(user.token)).emailVerified, true);
  });

  test('a new link at most once a minute; none once confirmed; sessions only', async () => {
    const email = uniqueEmail('again');
    const user = await signup(s.t.app, email, PASSWORD, { verify: false });
    await confirmationMail(email);
    const tooSoon = assertError(await resend(user.token), 429, 'too_many_requests');
    assert.ok(tooSoon);
    const retry = Number((await resend(user.token)).headers['retry-after']);
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);

    // A minute later (the first link's time moved back): a second mail, and either link works.
    await s.t.database.db
      .updateTable('email_verifications')
      .set({ created_at: Date.now() - 61_000 })
      .where('user_id', '=', user.id)
      .execute();
    assert.deepEqual(assertOk(await resend(user.token)), { success: true });
    const mails = mailboxOf(s.t.app)
      .to(email)
      .filter((m) => /Confirm/.test(m.subject));
    assert.equal(mails.length, 2);
    assertOk(await verify(verificationToken(mails[0]!)));
    assertError(await verify(verificationToken(mails[1]!)), 400, 'invalid_token');

    assertError(await resend(user.token), 409, 'already_verified');
    assertError(await call(s.t.app, 'POST', '/api/auth/resend-verification'), 401, 'unauthorized');
    const room = await createRoom(s.t.app, user);
    const { token } = await issueToken(s.t.app, user, room, ['read', 'write']);
    assertError(await resend(token), 403, 'api_token_not_allowed');
  });
});

describe('invitations wait for a confirmed address', () => {
  test('signing up with an invited address joins the room only after the link is followed', async () => {
    const owner = await signup(s.t.app);
    const room = await createRoom(s.t.app, owner, undefined, { name: 'Survey' });
    const email = uniqueEmail('invitee');
    assert.equal(
      assertOk(
        await call(s.t.app, 'POST', `/api/rooms/${room}/invite`, {
          auth: owner.token,
          body: { email, role: 'editor' },
        }),
      ).status,
      'pending',
    );

    // Whoever registers the address first gets nothing until the address is proven theirs.
    const invitee = await signup(s.t.app, email, PASSWORD, { verify: false });
    assert.deepEqual(await roomsOf(invitee.token), []);
    assertError(await call(s.t.app, 'GET', `/api/rooms/${room}`, { auth: invitee.token }), 403, 'forbidden');
    const mine = assertOk(
      await call(s.t.app, 'GET', '/api/users/pending-invitations', { auth: invitee.token }),
    ).invitations;
    assert.deepEqual(
      mine.map((i: { roomId: string }) => i.roomId),
      [room],
    );
    assertError(
      await call(s.t.app, 'POST', `/api/rooms/${room}/accept-invitation`, { auth: invitee.token }),
      403,
      'email_not_verified',
    );
    const login = assertOk(await call(s.t.app, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } }));
    assert.deepEqual(await roomsOf(login.token), [], 'logging in again does not accept it either');

    await followVerificationLink(s.t.app, email);
    assert.deepEqual(
      (await roomsOf(invitee.token)).map((r) => [r.roomId, r.role]),
      [[room, 'editor']],
    );
    assert.equal(
      assertOk(await call(s.t.app, 'GET', `/api/rooms/${room}`, { auth: invitee.token })).userRole,
      'editor',
    );
    assert.deepEqual(
      assertOk(await call(s.t.app, 'GET', `/api/rooms/${room}/pending-invitations`, { auth: owner.token })).invitations,
      [],
    );
  });

  test('inviting an account whose address is not confirmed leaves the invitation pending until it is', async () => {
    const owner = await signup(s.t.app);
    const room = await createRoom(s.t.app, owner);
    const unconfirmed = await signup(s.t.app, uniqueEmail('later'), PASSWORD, { verify: false });
    const invite = assertOk(
      await call(s.t.app, 'POST', `/api/rooms/${room}/invite`, {
        auth: owner.token,
        body: { email: unconfirmed.email, role: 'viewer' },
      }),
    );
    assert.equal(invite.status, 'pending');
    assert.deepEqual(await roomsOf(unconfirmed.token), []);
    await followVerificationLink(s.t.app, unconfirmed.email);
    assert.deepEqual(
      (await roomsOf(unconfirmed.token)).map((r) => [r.roomId, r.role]),
      [[room, 'viewer']],
    );
  });

  test('every invitation is e-mailed with a link to the room; an added member is told too', async () => {
    const owner = await signup(s.t.app);
    const room = await createRoom(s.t.app, owner, undefined, { name: 'Flood map' });
    const stranger = uniqueEmail('newcomer');
    assertOk(
      await call(s.t.app, 'POST', `/api/rooms/${room}/invite`, {
        auth: owner.token,
        body: { email: stranger, role: 'viewer' },
      }),
    );
    const pending = await mailboxOf(s.t.app).waitFor(stranger, /invited you/);
    assert.match(pending.subject, /Flood map/);
    assert.ok(pending.text.includes(`https://maps.example.org/r/${room}`), pending.text);
    assert.ok(pending.text.includes(owner.email) && /viewer/.test(pending.text));

    const member = await signup(s.t.app);
    assert.equal(
      assertOk(
        await call(s.t.app, 'POST', `/api/rooms/${room}/invite`, {
          auth: owner.token,
          body: { email: member.email, role: 'editor' },
        }),
      ).status,
      'added',
    );
    const added = await mailboxOf(s.t.app).waitFor(member.email, /added you/);
    assert.ok(added.text.includes(`https://maps.example.org/r/${room}`));
  });
});
