import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import {
  assertError,
  assertOk,
  buildTestApp,
  call,
  createRoom,
  PASSWORD,
  type TestApp,
  uniqueEmail,
} from '../helpers.js';

/**
 * E-mail through a real SMTP server on loopback (the `smtp-server` package), and into the log
 * when no SMTP is configured: the messages reach the right people and their links work.
 */

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** The text of a message: quoted-printable soft breaks and escapes undone. */
const bodyOf = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

let smtp: SMTPServer;
let port: number;
const inbox: Received[] = [];

before(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (raw += chunk));
      stream.on('end', () => {
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: bodyOf(raw),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  port = (smtp.server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

async function delivered(to: string, pattern: RegExp): Promise<Received> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = inbox.filter((m) => m.to.includes(to) && pattern.test(m.raw)).at(-1);
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`nothing for ${to} matching ${pattern}: ${JSON.stringify(inbox.map((m) => m.to))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const linkToken = (text: string) =>
  /\/verify-email\?token=([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? assert.fail(`no link in ${text}`);

const signupRaw = async (t: TestApp, email: string) =>
  assertOk(await call(t.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD } }), 201) as {
    token: string;
    user: { id: string };
  };

test('through SMTP: confirmation and invitation mails arrive with the right recipients, and their links work', async () => {
  const t = await buildTestApp(
    {
      smtpUrl: `smtp://127.0.0.1:${port}`,
      mailFrom: 'Maproom <rooms@maps.example.org>',
      publicUrl: 'https://maps.example.org',
    },
    { mailer: undefined },
  );
  try {
    const ownerEmail = uniqueEmail('owner');
    const owner = await signupRaw(t, ownerEmail);
    const ownerMail = await delivered(ownerEmail, /Confirm your e-mail address/);
    assert.deepEqual(ownerMail.to, [ownerEmail]);
    assert.equal(ownerMail.from, 'rooms@maps.example.org');
    assert.match(ownerMail.raw, /^From: Maproom <rooms@maps\.example\.org>/m);
    assertOk(await call(t.app, 'POST', '/api/auth/verify-email', { body: { token: linkToken(ownerMail.raw) } }));

    const room = await createRoom(t.app, { token: owner.token, id: owner.user.id, email: ownerEmail }, undefined, {
      name: 'Rivers',
    });
    const bob = uniqueEmail('bob');
    assertOk(
      await call(t.app, 'POST', `/api/rooms/${room}/invite`, {
        auth: owner.token,
        body: { email: bob, role: 'editor' },
      }),
    );
    const invitation = await delivered(bob, /invited you/);
    assert.deepEqual(invitation.to, [bob]);
    assert.ok(invitation.raw.includes(`https://maps.example.org/r/${room}`), invitation.raw);

    // Bob signs up with the invited address: nothing until he follows his own link.
    const bobSession = await signupRaw(t, bob);
    assertError(await call(t.app, 'GET', `/api/rooms/${room}`, { auth: bobSession.token }), 403, 'forbidden');
    const bobMail = await delivered(bob, /Confirm your e-mail address/);
    assertOk(await call(t.app, 'POST', '/api/auth/verify-email', { body: { token: linkToken(bobMail.raw) } }));
    assert.equal(
      assertOk(await call(t.app, 'GET', `/api/rooms/${room}`, { auth: bobSession.token })).userRole,
      'editor',
    );
    assert.ok(!inbox.some((m) => m.to.length !== 1), 'each message goes to one person');
  } finally {
    await t.close();
  }
});

test('without SMTP the message, link included, is written to the log, and the link works', async () => {
  const lines: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
  const t = await buildTestApp(
    { logLevel: 'info', publicUrl: 'http://localhost:8080' },
    { mailer: undefined, logStream },
  );
  try {
    const email = uniqueEmail('solo');
    const session = await signupRaw(t, email);
    const deadline = Date.now() + 5000;
    let entry: { msg: string; mail: { to: string; text: string } } | undefined;
    while (!entry && Date.now() < deadline) {
      entry = lines.map((l) => JSON.parse(l)).find((l) => l.mail?.to === email);
      if (!entry) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(entry, 'the mail is in the log');
    assert.match(entry.msg, /no SMTP_URL configured/);
    assert.match(entry.mail.text, /http:\/\/localhost:8080\/verify-email\?token=/);
    assertOk(await call(t.app, 'POST', '/api/auth/verify-email', { body: { token: linkToken(entry.mail.text) } }));
    assert.equal(assertOk(await call(t.app, 'GET', '/api/auth/me', { auth: session.token })).user.emailVerified, true);
  } finally {
    await t.close();
  }
});
