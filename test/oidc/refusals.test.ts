import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BrowserClient } from '../support/browser-client.js';
import { request } from '../support/instances.js';
import { freePort, makeTestCa, startOidcProvider, type TestCa, type TestProvider } from '../support/oidc-provider.js';
import {
  type OidcService,
  providerEntry,
  handOver,
  reachCallback,
  servicePort,
  startOidcService,
} from '../support/oidc-service.js';

/**
 * What a sign-in with a provider refuses, and how: a replayed or forged callback, a callback
 * in another browser (login CSRF), the provider's own error, a provider that is down (and
 * comes back), redirects off the site through `returnTo`, unknown providers. Every refusal is
 * a redirect to the web app's landing page with the refusal's code, never a 500.
 */

let ca: TestCa;
let provider: TestProvider;
let late: TestProvider | undefined;
let latePort: number;
let service: OidcService;

before(async () => {
  ca = makeTestCa();
  const at = await servicePort(['corp', 'late']);
  provider = await startOidcProvider(ca, at.callbacks);
  latePort = await freePort();
  service = await startOidcService(ca, at, {
    OIDC_PROVIDERS: JSON.stringify([
      providerEntry('corp', provider),
      providerEntry('late', { issuer: `https://127.0.0.1:${latePort}` }),
    ]),
    LOCAL_ACCOUNTS: 'off',
    SIGNUP: 'invite',
  });
});
after(async () => {
  await service?.stop();
  await provider?.close();
  await late?.close();
  ca?.remove();
});

const fragmentOf = (location: string | undefined) => {
  assert.ok(location, 'a redirect');
  const landing = new URL(location);
  assert.equal(landing.pathname, '/signed-in');
  return new URLSearchParams(landing.hash.slice(1));
};

/** A browser that went through the provider and holds the callback address, not yet visited. */
async function atCallback(login: string, returnTo?: string) {
  provider.accounts.set(login, { email: `${login}@example.org`, email_verified: true });
  const browser = new BrowserClient(ca.ca);
  const callback = await reachCallback(browser, service, 'corp', login, returnTo);
  return { browser, callback };
}

test('the sign-in options: local accounts, the sign-up policy and the providers, to anyone', async () => {
  const answer = await request(service.instance, 'GET', '/api/auth/providers');
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.body, {
    localAccounts: false,
    signup: 'invite',
    providers: [
      { id: 'corp', name: 'Sign in with corp' },
      { id: 'late', name: 'Sign in with late' },
    ],
  });
});

test('a callback is single use: its replay is refused (sign_in_expired), with no new session', async () => {
  // SIGNUP=invite: an account that exists already (made here directly, LOCAL_ACCOUNTS is off).
  await service.sql(
    'INSERT INTO users (id, email, name, password_hash, created_at, email_verified_at, provider_admin) VALUES (?, ?, ?, ?, ?, ?, 0)',
    'user-replay',
    'replay@example.org',
    'Replay',
    null,
    Date.now(),
    Date.now(),
  );
  const { browser, callback } = await atCallback('replay');
  const first = fragmentOf((await browser.get(callback)).location);
  assert.equal(first.get('error'), null, `signed in: ${first}`);
  assert.ok((await handOver(browser, service)).token, 'signed in');
  const again = await browser.get(callback);
  assert.equal(again.status, 302);
  assert.equal(fragmentOf(again.location).get('error'), 'sign_in_expired');
  assert.equal((await handOver(browser, service)).answer.status, 400, 'no new session');
  // Not even from another browser that would bring no cookie.
  const other = await new BrowserClient(ca.ca).get(callback);
  assert.equal(fragmentOf(other.location).get('error'), 'sign_in_expired');
});

test('a first sign-in the sign-up policy refuses (SIGNUP=invite, no invitation) makes no account', async () => {
  const { browser, callback } = await atCallback('uninvited');
  assert.equal(fragmentOf((await browser.get(callback)).location).get('error'), 'signup_closed');
  const rows = await service.sql('SELECT id FROM users WHERE email = ?', 'uninvited@example.org');
  assert.equal(rows.length, 0);
});

test('SIGNUP=invite: an invited address signs up through the provider and joins the room', async () => {
  await service.sql(
    'INSERT INTO users (id, email, name, password_hash, created_at, email_verified_at, provider_admin) VALUES (?, ?, ?, ?, ?, ?, 0)',
    'user-inviter',
    'owner@example.org',
    'Owner',
    null,
    Date.now(),
    Date.now(),
  );
  const owner = await atCallback('owner');
  await owner.browser.get(owner.callback);
  const token = (await handOver(owner.browser, service)).token!;
  const roomId = 'oidcinvite';
  assert.equal(
    (await request(service.instance, 'POST', `/api/rooms/${roomId}`, { auth: token, body: {} })).status,
    200,
  );
  const invited = await request(service.instance, 'POST', `/api/rooms/${roomId}/invite`, {
    auth: token,
    body: { email: 'guest@example.org', role: 'editor' },
  });
  assert.equal(invited.status, 200, JSON.stringify(invited.body));

  const guest = await atCallback('guest');
  await guest.browser.get(guest.callback);
  const guestToken = (await handOver(guest.browser, service)).token;
  assert.ok(guestToken, 'the invitation lets the address sign up');
  const room = await request(service.instance, 'GET', `/api/rooms/${roomId}`, { auth: guestToken! });
  assert.equal(room.status, 200, 'the pending invitation became a membership');
  assert.equal(room.body.userRole, 'editor');
});

test('a forged or missing state is refused (sign_in_expired), never a 500', async () => {
  const { browser, callback } = await atCallback('forger');
  const forged = new URL(callback);
  forged.searchParams.set('state', 'not-the-state-we-issued');
  assert.equal(fragmentOf((await browser.get(forged.href)).location).get('error'), 'sign_in_expired');
  const missing = new URL(callback);
  missing.searchParams.delete('state');
  assert.equal(fragmentOf((await browser.get(missing.href)).location).get('error'), 'sign_in_expired');
  const bare = await browser.get(`${service.url}/api/auth/oidc/corp/callback`);
  assert.equal(fragmentOf(bare.location).get('error'), 'sign_in_expired');
  const junk = await browser.get(`${service.url}/api/auth/oidc/corp/callback?state=%ff%fe&code=&code=2&iss=x`);
  assert.equal(junk.status, 302);
});

test("a callback in another browser, or without the start's cookie, is refused (sign_in_mismatch)", async () => {
  // Login CSRF: the attacker starts a sign-in with their own account and gets a victim's browser to the callback.
  const attacker = await atCallback('attacker');
  const victim = new BrowserClient(ca.ca);
  await victim.get(`${service.url}/api/auth/oidc/corp/start`); // the victim's own cookie, for another flow
  const crossed = await victim.get(attacker.callback);
  assert.equal(fragmentOf(crossed.location).get('error'), 'sign_in_mismatch');
  assert.equal((await handOver(victim, service)).body.error, 'sign_in_mismatch', 'no session for the victim');
  // The refused flow is spent: the attacker cannot finish it afterwards either.
  assert.equal(fragmentOf((await attacker.browser.get(attacker.callback)).location).get('error'), 'sign_in_expired');

  const lost = await atCallback('cookieless');
  lost.browser.forget(service.url, 'maproom_oidc');
  assert.equal(fragmentOf((await lost.browser.get(lost.callback)).location).get('error'), 'sign_in_mismatch');
});

/** An account of `login` (SIGNUP=invite: the provider signs in to it, never makes one). */
const account = (login: string) =>
  service.sql(
    'INSERT INTO users (id, email, name, password_hash, created_at, email_verified_at, provider_admin) VALUES (?, ?, ?, ?, ?, ?, 0)',
    `user-${login}`,
    `${login}@example.org`,
    login,
    null,
    Date.now(),
    Date.now(),
  );

test("a forged landing does not sign a browser in: the session goes only with the callback's cookie", async () => {
  // The attacker finishes a sign-in of their own and sends a victim to the landing page (its
  // fragment can only name a returnTo now); the victim's page asks for the session without the cookie.
  await account('csrf-attacker');
  const attacker = await atCallback('csrf-attacker');
  const landing = fragmentOf((await attacker.browser.get(attacker.callback)).location);
  assert.equal(landing.get('token'), null, 'no session in the address to forward');
  const victim = new BrowserClient(ca.ca);
  const forged = await handOver(victim, service);
  assert.equal(forged.answer.status, 400);
  assert.equal(forged.body.error, 'sign_in_mismatch');
  // An unknown cookie value is refused too; the attacker's own landing still works, once.
  const guessed = await fetch(`${service.url}/api/auth/oidc/session`, {
    method: 'POST',
    headers: { cookie: 'maproom_oidc_handover=guessed-value' },
  });
  assert.equal(guessed.status, 400);
  assert.equal((await guessed.json()).error, 'sign_in_expired');
  assert.ok((await handOver(attacker.browser, service)).token);
});

test('a hand-over expires within a minute, and refuses an account disabled since the callback', async () => {
  await account('late-lander');
  await account('disabled-lander');
  const late = await atCallback('late-lander');
  await late.browser.get(late.callback);
  await service.sql('UPDATE oidc_handovers SET expires_at = ?', Date.now() - 1);
  const expired = await handOver(late.browser, service);
  assert.equal(expired.body.error, 'sign_in_expired');
  const disabled = await atCallback('disabled-lander');
  await disabled.browser.get(disabled.callback);
  await service.sql('UPDATE users SET disabled_at = ? WHERE email = ?', Date.now(), 'disabled-lander@example.org');
  const refused = await handOver(disabled.browser, service);
  assert.equal(refused.answer.status, 403);
  assert.equal(refused.body.error, 'account_disabled');
});

test('the start refuses unknown query parameters', async () => {
  const answer = await new BrowserClient(ca.ca).get(`${service.url}/api/auth/oidc/corp/start?returnTo=/&client=x`);
  assert.equal(answer.status, 400, answer.body);
});

test("the provider's error answer is refused (provider_refused)", async () => {
  const browser = new BrowserClient(ca.ca);
  const start = await browser.get(`${service.url}/api/auth/oidc/corp/start?returnTo=/r/abcdefghij`);
  const state = new URL(start.location!).searchParams.get('state')!;
  const answer = await browser.get(
    `${service.url}/api/auth/oidc/corp/callback?error=access_denied&error_description=no&state=${state}`,
  );
  const fragment = fragmentOf(answer.location);
  assert.equal(fragment.get('error'), 'provider_refused');
  assert.equal(fragment.get('returnTo'), '/r/abcdefghij');
});

test('returnTo is a path of this site, or /: no open redirect', async () => {
  const browser = new BrowserClient(ca.ca);
  const kept = ['/r/abcdefghij', '/p/abcdefghij?slide=2', '/'];
  const refused = [
    '//evil.example/x',
    '/\\evil.example',
    'https://evil.example/',
    'evil.example',
    '/\t/evil.example',
    '/%0a/x\n',
    'javascript:alert(1)',
    '',
  ];
  for (const returnTo of [...kept, ...refused]) {
    // The provider is told nothing of returnTo; a refusal's landing carries the kept value.
    const start = await browser.get(`${service.url}/api/auth/oidc/corp/start?returnTo=${encodeURIComponent(returnTo)}`);
    const state = new URL(start.location!).searchParams.get('state')!;
    assert.ok(!start.location!.includes('evil'), 'nothing of returnTo goes to the provider');
    const answer = await browser.get(`${service.url}/api/auth/oidc/corp/callback?error=access_denied&state=${state}`);
    const landing = new URL(answer.location!);
    assert.equal(landing.origin, service.url, `${JSON.stringify(returnTo)} stays on the site`);
    const expected = kept.includes(returnTo) ? returnTo : '/';
    assert.equal(fragmentOf(answer.location).get('returnTo'), expected, JSON.stringify(returnTo));
  }
});

test('an unknown provider is 404 at the start and the callback', async () => {
  for (const path of ['/api/auth/oidc/nope/start', '/api/auth/oidc/nope/callback?state=x&code=y']) {
    const answer = await request(service.instance, 'GET', path);
    assert.equal(answer.status, 404, path);
    assert.equal(answer.body.error, 'not_found');
  }
});

test('a provider that is down: the start says so (provider_unavailable), and works once it is back', async () => {
  const browser = new BrowserClient(ca.ca);
  const down = await browser.get(`${service.url}/api/auth/oidc/late/start?returnTo=/r/abcdefghij`);
  assert.equal(down.status, 302);
  const fragment = fragmentOf(down.location);
  assert.equal(fragment.get('error'), 'provider_unavailable');
  assert.equal(fragment.get('returnTo'), '/r/abcdefghij');
  assert.equal((await request(service.instance, 'GET', '/api/health')).status, 200, 'the service carries on');

  late = await startOidcProvider(ca, [`${service.url}/api/auth/oidc/late/callback`], latePort);
  const up = await browser.get(`${service.url}/api/auth/oidc/late/start`);
  assert.equal(up.status, 302);
  assert.equal(new URL(up.location!).origin, late.issuer, 'discovery is tried again');
});
