import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sha256 } from '../../src/ids.js';
import { BrowserClient } from '../support/browser-client.js';
import { request } from '../support/instances.js';
import { makeTestCa, startOidcProvider, type TestCa, type TestProvider } from '../support/oidc-provider.js';
import {
  type OidcService,
  passwordAccount,
  providerEntry,
  handOver,
  reachCallback,
  servicePort,
  startOidcService,
} from '../support/oidc-service.js';

/**
 * Sign-in with an OpenID Connect provider, end to end: a real `oidc-provider` over HTTPS (a
 * throw-away CA the service trusts through NODE_EXTRA_CA_CERTS), the service as a child process
 * (SQLite, or a fresh PostgreSQL database), a browser that keeps cookies and fills the
 * provider's own login form. Which account a sign-in reaches, and what it refuses.
 */

let ca: TestCa;
let provider: TestProvider;
let service: OidcService;

before(async () => {
  ca = makeTestCa();
  const at = await servicePort(['corp', 'other', 'wrong']);
  provider = await startOidcProvider(ca, at.callbacks);
  service = await startOidcService(ca, at, {
    OIDC_PROVIDERS: JSON.stringify([
      providerEntry('corp', provider, { adminClaim: 'groups=maproom-admins' }),
      providerEntry('other', provider),
      providerEntry('wrong', provider, { clientSecret: 'not-the-secret' }),
    ]),
    SIGNUP_DOMAINS: 'example.org',
  });
});
after(async () => {
  await service?.stop();
  await provider?.close();
  ca?.remove();
});

/** Signs `login` in through `providerId`; answers where the service sent the browser, parsed. */
async function signIn(login: string, options: { providerId?: string; returnTo?: string } = {}) {
  const browser = new BrowserClient(ca.ca);
  const callback = await reachCallback(browser, service, options.providerId ?? 'corp', login, options.returnTo);
  const answer = await browser.get(callback);
  assert.equal(answer.status, 302, answer.body);
  const landing = new URL(answer.location!);
  const fragment = new URLSearchParams(landing.hash.slice(1));
  // The landing page asks for the session only when the callback did not say why not.
  const token = fragment.has('error') ? null : (await handOver(browser, service)).token;
  return { answer, landing, fragment, token, browser, callback };
}

async function me(token: string) {
  const answer = await request(service.instance, 'GET', '/api/auth/me', { auth: token });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.user as { id: string; email: string; name: string | null; emailVerified: boolean };
}

const userCount = async (email: string) =>
  (await service.sql<{ n: number }>('SELECT COUNT(*) AS n FROM users WHERE email = ?', email)).map((r) =>
    Number(r.n),
  )[0];

test('a first sign-in creates the account from the claims and lands signed in through the hand-over cookie', async () => {
  provider.accounts.set('ada', { email: 'Ada@Example.org', email_verified: true, name: 'Ada Lovelace' });
  const browser = new BrowserClient(ca.ca);
  const start = await browser.get(
    `${service.url}/api/auth/oidc/corp/start?returnTo=${encodeURIComponent('/r/abcdefghij')}`,
  );
  assert.equal(start.status, 302);
  const authorize = new URL(start.location!);
  assert.equal(authorize.origin, provider.issuer);
  assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
  assert.match(authorize.searchParams.get('code_challenge') ?? '', /^[\w-]{43}$/);
  assert.ok(authorize.searchParams.get('state') && authorize.searchParams.get('nonce'), 'state and nonce');
  assert.equal(authorize.searchParams.get('redirect_uri'), `${service.url}/api/auth/oidc/corp/callback`);
  const cookie = String(start.headers['set-cookie']);
  assert.match(
    cookie,
    /^maproom_oidc=[\w-]{43}; Path=\/api\/auth\/oidc\/corp\/callback; Max-Age=\d+; HttpOnly; SameSite=Lax$/,
  );

  const { answer, landing, fragment, token, browser: ada } = await signIn('ada', { returnTo: '/r/abcdefghij' });
  assert.equal(landing.origin + landing.pathname, `${service.url}/signed-in`);
  assert.equal(landing.search, '', 'nothing in the query string');
  assert.deepEqual([...fragment.keys()], ['returnTo'], 'no session in the address');
  assert.equal(fragment.get('returnTo'), '/r/abcdefghij');
  const [flowCookie, handoverCookie] = answer.headers['set-cookie'] as string[];
  assert.match(flowCookie!, /^maproom_oidc=; .*Max-Age=0/, 'the flow cookie is cleared');
  assert.match(
    handoverCookie!,
    /^maproom_oidc_handover=[\w-]{43}; Path=\/api\/auth\/oidc\/session; Max-Age=60; HttpOnly; SameSite=Lax$/,
  );
  // Single use: the cookie was spent (and cleared) by the landing's one trade.
  const again = await handOver(ada, service);
  assert.equal(again.answer.status, 400);
  assert.equal(again.body.error, 'sign_in_mismatch', 'the browser no longer holds the cookie');
  const user = await me(token!);
  assert.deepEqual(
    { email: user.email, name: user.name, emailVerified: user.emailVerified },
    { email: 'ada@example.org', name: 'Ada Lovelace', emailVerified: true },
  );
  const identities = await service.sql('SELECT provider_id, subject FROM user_identities WHERE user_id = ?', user.id);
  assert.deepEqual(
    identities.map((row) => ({ ...row })),
    [{ provider_id: 'corp', subject: 'ada' }],
  );
});

test('the next sign-in of the same identity reaches the same account, even with a new address at the provider', async () => {
  provider.accounts.set('bob', { email: 'bob@example.org', email_verified: true, name: 'Bob' });
  const first = await me((await signIn('bob')).token!);
  provider.accounts.set('bob', { email: 'robert@example.org', email_verified: true, name: 'Robert' });
  const again = await me((await signIn('bob')).token!);
  assert.equal(again.id, first.id);
  assert.equal(await userCount('robert@example.org'), 0, 'no second account');
});

test('an account with the same address is linked when the provider vouches for it, not otherwise', async () => {
  const owner = await passwordAccount(service, 'carol@example.org', true);
  provider.accounts.set('carol-unverified', { email: 'carol@example.org', email_verified: false, name: 'Mallory' });
  const refused = await signIn('carol-unverified');
  assert.equal(refused.fragment.get('error'), 'email_unverified');
  assert.equal(refused.token, null);
  const links = await service.sql('SELECT subject FROM user_identities WHERE user_id = ?', owner.user.id);
  assert.equal(links.length, 0, 'nothing linked');
  // Without the claim at all, the provider vouches for nothing either.
  provider.accounts.set('carol-silent', { email: 'carol@example.org', name: 'Carol?' });
  assert.equal((await signIn('carol-silent')).fragment.get('error'), 'email_unverified');

  provider.accounts.set('carol', { email: 'carol@example.org', email_verified: true, name: 'Carol' });
  const linked = await me((await signIn('carol')).token!);
  assert.equal(linked.id, owner.user.id);
  // The password still signs in: the account is the same, with two ways in.
  const login = await request(service.instance, 'POST', '/api/auth/login', {
    body: { email: 'carol@example.org', password: 'correct horse battery' },
  });
  assert.equal(login.status, 200);
});

test('a verified address taking over an unconfirmed password account removes the password someone chose', async () => {
  // Someone signed up first with dave's address and a password of their own, never confirming it.
  const squatter = await passwordAccount(service, 'dave@example.org', false);
  provider.accounts.set('dave', { email: 'dave@example.org', email_verified: true, name: 'Dave' });
  const dave = await me((await signIn('dave')).token!);
  assert.equal(dave.id, squatter.user.id);
  assert.equal(dave.emailVerified, true);
  const login = await request(service.instance, 'POST', '/api/auth/login', {
    body: { email: 'dave@example.org', password: 'correct horse battery' },
  });
  assert.equal(login.status, 401, 'the password of whoever made the account no longer works');
  const before = await request(service.instance, 'GET', '/api/auth/me', { auth: squatter.token });
  assert.equal(before.status, 401, 'nor does the session they signed up with');
});

test('a claim ends everything the maker of the account kept: the kept session, links, room tokens', async () => {
  const squatter = await passwordAccount(service, 'hank@example.org', true);
  const auth = squatter.token;
  // While the address counts as proven (set in the database), the maker makes a room and a token.
  const roomId = `kept${Date.now().toString(36)}`.slice(0, 10).padEnd(10, '0');
  const room = await request(service.instance, 'POST', `/api/rooms/${roomId}`, { auth, body: {} });
  assert.equal(room.status, 200, JSON.stringify(room.body));
  const issued = await request(service.instance, 'POST', `/api/rooms/${roomId}/api-tokens`, {
    auth,
    body: { name: 'kept', permissions: ['read'], expiresInDays: 30 },
  });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  await service.sql('UPDATE users SET email_verified_at = NULL WHERE id = ?', squatter.user.id);
  // A password change keeps this session past the cut-off; an address change leaves a link.
  const changed = await request(service.instance, 'POST', '/api/auth/password', {
    auth,
    body: { currentPassword: 'correct horse battery', newPassword: 'the squatter keeps this' },
  });
  assert.equal(changed.status, 204, JSON.stringify(changed.body));
  const moved = await request(service.instance, 'POST', '/api/auth/email', {
    auth,
    body: { email: 'mallory@example.org', password: 'the squatter keeps this' },
  });
  assert.equal(moved.status, 202, JSON.stringify(moved.body));
  // The link's secret is only mailed: give the stored link a secret the test knows.
  const secret = 'a-change-link-the-squatter-holds';
  await service.sql(
    "UPDATE email_verifications SET token_hash = ? WHERE user_id = ? AND purpose = 'change'",
    sha256(secret),
    squatter.user.id,
  );

  provider.accounts.set('hank', { email: 'hank@example.org', email_verified: true, name: 'Hank' });
  const hank = await me((await signIn('hank')).token!);
  assert.equal(hank.id, squatter.user.id);
  const kept = await request(service.instance, 'GET', '/api/auth/me', { auth });
  assert.equal(kept.status, 401, 'the session the maker kept through a password change ends');
  const read = await request(service.instance, 'GET', `/api/rooms/${roomId}`, { auth: issued.body.token });
  assert.equal(read.status, 401, 'the room token the maker created ends');
  const follow = await request(service.instance, 'POST', '/api/auth/verify-email', { body: { token: secret } });
  assert.equal(follow.status, 400, 'the address change the maker asked for is gone');
  assert.equal((await me((await signIn('hank')).token!)).email, 'hank@example.org');
});

test('a new account takes the address as verified only when the provider says so', async () => {
  provider.accounts.set('erin', { email: 'erin@example.org', email_verified: false, name: 'Erin' });
  const erin = await me((await signIn('erin')).token!);
  assert.equal(erin.emailVerified, false);
  assert.equal(erin.email, 'erin@example.org');
});

test("a new account's e-mails are in the provider's locale when the service speaks it, else English", async () => {
  provider.accounts.set('gina', { email: 'gina@example.org', email_verified: true, name: 'Gina', locale: 'de-CH' });
  const gina = await signIn('gina');
  assert.equal(((await me(gina.token!)) as { locale?: unknown }).locale, 'de');
  provider.accounts.set('gina', { email: 'gina@example.org', email_verified: true, name: 'Gina', locale: 'fr' });
  assert.equal(((await me((await signIn('gina')).token!)) as { locale?: unknown }).locale, 'de', 'kept, not changed');
  provider.accounts.set('ivo', { email: 'ivo@example.org', email_verified: true, name: 'Ivo', locale: 'pt-BR' });
  assert.equal(((await me((await signIn('ivo')).token!)) as { locale?: unknown }).locale, null);
});

test('the sign-up policy refuses a new account (signup_closed), and makes none', async () => {
  provider.accounts.set('frank', { email: 'frank@elsewhere.example', email_verified: true, name: 'Frank' });
  const refused = await signIn('frank', { returnTo: '/r/abcdefghij' });
  assert.equal(refused.fragment.get('error'), 'signup_closed');
  assert.equal(refused.fragment.get('returnTo'), '/r/abcdefghij');
  assert.equal(await userCount('frank@elsewhere.example'), 0);
});

test('a disabled account is refused (account_disabled); a deleted one counts as absent', async () => {
  provider.accounts.set('gina', { email: 'gina@example.org', email_verified: true, name: 'Gina' });
  const gina = await me((await signIn('gina')).token!);
  await service.sql('UPDATE users SET disabled_at = ? WHERE id = ?', Date.now(), gina.id);
  const refused = await signIn('gina');
  assert.equal(refused.fragment.get('error'), 'account_disabled');
  assert.equal(refused.token, null);

  // Deleted: the row stays without its address; the identity no longer leads to it.
  await service.sql(
    'UPDATE users SET deleted_at = ?, email = ? WHERE id = ?',
    Date.now(),
    `deleted-${gina.id}`,
    gina.id,
  );
  const fresh = await me((await signIn('gina')).token!);
  assert.notEqual(fresh.id, gina.id);
  assert.equal(fresh.email, 'gina@example.org');
});

test("the provider's admin claim sets provider_admin at every sign-in, and only for its provider", async () => {
  const adminOf = async (id: string) =>
    Number((await service.sql<{ a: number }>('SELECT provider_admin AS a FROM users WHERE id = ?', id))[0]!.a);
  provider.accounts.set('hal', { email: 'hal@example.org', email_verified: true, groups: ['staff', 'maproom-admins'] });
  const hal = await me((await signIn('hal')).token!);
  assert.equal(await adminOf(hal.id), 1);
  provider.accounts.set('hal', { email: 'hal@example.org', email_verified: true, groups: ['staff'] });
  await signIn('hal');
  assert.equal(await adminOf(hal.id), 0, 'taken away when the claim no longer names them');
  provider.accounts.set('hal', { email: 'hal@example.org', email_verified: true, groups: 'maproom-admins' });
  await signIn('hal');
  assert.equal(await adminOf(hal.id), 1, 'a claim equal to the value counts too');
  // The other provider has no admin claim: signing in there (linked by the verified address) says "not an admin".
  await signIn('hal', { providerId: 'other' });
  assert.equal(await adminOf(hal.id), 0);
  provider.accounts.set('ivy', { email: 'ivy@example.org', email_verified: true, groups: ['maproom-admins-not'] });
  assert.equal(await adminOf((await me((await signIn('ivy')).token!)).id), 0);
});

test('a code exchange the provider refuses (a wrong client secret) is sign_in_failed, not a 500', async () => {
  provider.accounts.set('jo', { email: 'jo@example.org', email_verified: true });
  const refused = await signIn('jo', { providerId: 'wrong' });
  assert.equal(refused.fragment.get('error'), 'sign_in_failed');
  assert.equal(await userCount('jo@example.org'), 0);
});
