import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assertError,
  assertOk,
  assertValidation,
  buildTestApp,
  call,
  createRoom,
  mailboxOf,
  PASSWORD,
  type TestApp,
  type TestUser,
  uniqueEmail,
} from '../helpers.js';
import { verificationToken } from '../support/mailbox.js';

/**
 * The language of a user's e-mails (decisions: "The language of e-mails"): chosen at sign-up
 * (`locale`) or with PATCH /api/auth/me, told by GET /api/auth/me (null: English), and every
 * mail to the user is written in it; an invitation in the invitee's language when the address
 * has an account, else the inviter's.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const me = async (auth: string) => assertOk(await call(t.app, 'GET', '/api/auth/me', { auth })).user;
const setLocale = (auth: string, locale: unknown) => call(t.app, 'PATCH', '/api/auth/me', { auth, body: { locale } });

/** Signs up (with a language, or none) and follows the confirmation link, whatever its language. */
async function signUp(name: string, locale?: string): Promise<TestUser> {
  const email = uniqueEmail(name);
  const res = await call(t.app, 'POST', '/api/auth/signup', {
    body: { email, password: PASSWORD, ...(locale && { locale }) },
  });
  const { token, user } = assertOk(res, 201);
  const secret = verificationToken(await mailboxOf(t.app).waitFor(email, /Maproom/));
  assertOk(await call(t.app, 'POST', '/api/auth/verify-email', { body: { token: secret } }));
  return { token, id: user.id, email };
}

test('signup with a locale stores it; GET /api/auth/me tells it, null without one', async () => {
  const french = await signUp('french', 'fr');
  assert.equal((await me(french.token)).locale, 'fr');
  const plain = await signUp('plain');
  assert.equal((await me(plain.token)).locale, null);
});

test('signup with a language the service does not speak is 400 validation_error, and no account', async () => {
  for (const locale of ['xx', 'DE', 'de-CH', '', 5, null]) {
    const email = uniqueEmail('klingon');
    const res = await call(t.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD, locale } });
    assertValidation(res, 'locale');
    const login = await call(t.app, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    assertError(login, 401, 'invalid_credentials');
  }
});

test('PATCH /api/auth/me sets the language (204), null sets English back; an unknown one is 400', async () => {
  const user = await signUp('chooser');
  const set = await setLocale(user.token, 'de');
  assert.equal(set.statusCode, 204, set.body);
  assert.equal(set.body, '');
  assert.equal((await me(user.token)).locale, 'de');
  for (const locale of ['klingon', 'EN', 'pt', 7, {}, undefined]) {
    assertValidation(await setLocale(user.token, locale), 'locale');
    assert.equal((await me(user.token)).locale, 'de', `unchanged after ${JSON.stringify(locale)}`);
  }
  assertValidation(
    await call(t.app, 'PATCH', '/api/auth/me', { auth: user.token, body: { locale: 'fr', name: 'x' } }),
    'name',
  );
  assert.equal((await setLocale(user.token, null)).statusCode, 204);
  assert.equal((await me(user.token)).locale, null);
  assertError(await setLocale('', 'de'), 401, 'unauthorized');
});

test('a user whose language is German gets the password-reset mail in German', async () => {
  const user = await signUp('german');
  assert.equal((await setLocale(user.token, 'de')).statusCode, 204);
  assertOk(await call(t.app, 'POST', '/api/auth/password-reset', { body: { email: user.email } }), 202);
  const mail = await mailboxOf(t.app).waitFor(user.email, /Maproom-Passwort/);
  assert.equal(mail.subject, 'Setzen Sie Ihr Maproom-Passwort zurück');
  assert.match(mail.text, /^Hallo,\n\njemand hat angefordert, das Passwort des Maproom-Kontos von /);
  assert.match(mail.text, /innerhalb von 30 Minuten/);
  assert.match(mail.text, /\/reset-password\?token=[A-Za-z0-9_-]+\n/);
  // English stays as it was for everyone else.
  const english = await signUp('english');
  assertOk(await call(t.app, 'POST', '/api/auth/password-reset', { body: { email: english.email } }), 202);
  const plain = await mailboxOf(t.app).waitFor(english.email, /Reset your Maproom password/);
  assert.match(plain.text, /^Hello,\n\nsomeone asked to reset .* within 30 minutes \(it works once\)/);
});

test('the confirmation mail of a sign-up is in the language it chose', async () => {
  const email = uniqueEmail('italian');
  const body = { email, password: PASSWORD, name: 'Lia', locale: 'it' };
  assertOk(await call(t.app, 'POST', '/api/auth/signup', { body }), 201);
  const mail = await mailboxOf(t.app).waitFor(email, /Conferma il tuo indirizzo/);
  assert.match(mail.text, /^Ciao Lia,\n\nconferma che .* entro 24 ore:\n\n.*\/verify-email\?token=/);
});

test('an invitation is in the invitee’s language, or the inviter’s when the address has no account', async () => {
  const owner = await signUp('inviter', 'fr');
  const room = await createRoom(t.app, owner, undefined, { name: 'Plan' });
  const german = await signUp('invitee', 'de');
  const added = await call(t.app, 'POST', `/api/rooms/${room}/invite`, {
    auth: owner.token,
    body: { email: german.email, role: 'editor' },
  });
  assert.equal(assertOk(added).status, 'added');
  const mail = await mailboxOf(t.app).waitFor(german.email, /Kartenraum/);
  assert.equal(mail.subject, `${owner.email} hat Sie zum Kartenraum „Plan“ hinzugefügt`);
  assert.match(mail.text, / als Bearbeiter hinzugefügt\.\n\nSie können ihn jetzt öffnen\.\n\n.*\/r\//);

  const stranger = uniqueEmail('nobody');
  const pending = await call(t.app, 'POST', `/api/rooms/${room}/invite`, {
    auth: owner.token,
    body: { email: stranger, role: 'viewer' },
  });
  assert.equal(assertOk(pending).status, 'pending');
  const invited = await mailboxOf(t.app).waitFor(stranger, /salle de carte/);
  assert.equal(invited.subject, `${owner.email} vous a invité dans la salle de carte « Plan »`);
  assert.match(invited.text, /en tant que lecteur\./);
});

test('an address proven by a reset forgets the language whoever made the account in its name chose', async () => {
  // Someone signs up with another person's address, in German, and never confirms it.
  const email = uniqueEmail('squatted');
  const squatter = assertOk(
    await call(t.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD, locale: 'de' } }),
    201,
  );
  assert.equal((await me(squatter.token)).locale, 'de');
  // The address's owner resets the password from the (German) mail: the address is proven now.
  assertOk(await call(t.app, 'POST', '/api/auth/password-reset', { body: { email } }), 202);
  const mail = await mailboxOf(t.app).waitFor(email, /Maproom-Passwort/);
  const token = /\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
  const confirmed = await call(t.app, 'POST', '/api/auth/password-reset/confirm', {
    body: { token, password: 'a-new-long-password' },
  });
  assert.equal(confirmed.statusCode, 204);
  const login = await call(t.app, 'POST', '/api/auth/login', { body: { email, password: 'a-new-long-password' } });
  assert.equal((await me(assertOk(login).token)).locale, null);
});
