import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BrowserClient } from '../support/browser-client.js';
import { type Instance, request, startInstance } from '../support/instances.js';
import { makeTestCa, startOidcProvider, type TestCa, type TestProvider } from '../support/oidc-provider.js';
import {
  type OidcService,
  handOver,
  providerEntry,
  reachCallback,
  servicePort,
  startOidcService,
} from '../support/oidc-service.js';
import { freshRedisUrl, REDIS_TEST_DB } from '../support/redis.js';
import { type S3TestServer, s3TestServer } from '../support/swift.js';

/**
 * Two instances on one PostgreSQL database (with Redis and S3, as a deployment of several
 * needs) behind one public address: a sign-in started on one may come back through the other
 * (the flow is in the database, not in a process), its landing page may take the session from
 * either, and it is still single use across them.
 */

let ca: TestCa;
let provider: TestProvider;
let first: OidcService;
let second: Instance;
let s3: S3TestServer;

before(async () => {
  ca = makeTestCa();
  s3 = await s3TestServer();
  const at = await servicePort(['corp']);
  provider = await startOidcProvider(ca, at.callbacks);
  first = await startOidcService(ca, at, {
    OIDC_PROVIDERS: JSON.stringify([providerEntry('corp', provider)]),
    REDIS_URL: await freshRedisUrl(REDIS_TEST_DB.oidcTwoInstances),
    S3_BUCKET: await s3.newBucket(),
    S3_ENDPOINT: s3.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
  });
  second = await startInstance('oidc-second', { ...first.env, PORT: '0' });
});
after(async () => {
  await second?.stop();
  await first?.stop();
  await provider?.close();
  await s3?.stop();
  ca?.remove();
});

test('a sign-in started on one instance finishes on the other, once', async () => {
  provider.accounts.set('kim', { email: 'kim@example.org', email_verified: true, name: 'Kim' });
  const browser = new BrowserClient(ca.ca);
  const callback = await reachCallback(browser, first, 'corp', 'kim', '/r/abcdefghij');
  const elsewhere = callback.replace(first.url, second.url);
  browser.share(first.url, second.url);
  const answer = await browser.get(elsewhere);
  const fragment = new URLSearchParams(new URL(answer.location!).hash.slice(1));
  assert.equal(fragment.get('returnTo'), '/r/abcdefghij');
  // The landing page's hand-over reaches the first instance: the callback's cookie is good there.
  browser.share(second.url, first.url);
  const { token } = await handOver(browser, first);
  assert.ok(token, 'the hand-over of one instance is taken on the other');
  const me = await request(second, 'GET', '/api/auth/me', { auth: token });
  assert.equal(me.status, 200, 'the session of one instance is good on the other');
  assert.equal(me.body.user.email, 'kim@example.org');
  const replay = await browser.get(callback);
  assert.equal(new URLSearchParams(new URL(replay.location!).hash.slice(1)).get('error'), 'sign_in_expired');
  browser.share(first.url, second.url);
  assert.equal((await handOver(browser, second)).body.error, 'sign_in_mismatch', 'the hand-over is spent');
});
