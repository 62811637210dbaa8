import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig, oidcProvidersOf } from '../../src/config.js';
import { scrubUrl } from '../../src/http/logging.js';
import { namesAdmin } from '../../src/modules/oidc/oidc-accounts.js';
import { safeReturnTo } from '../../src/modules/oidc/return-to.js';
import { buildTestApp, call } from '../helpers.js';

/**
 * The identity providers of the settings, checked at start with a sentence naming the
 * mistake; the rules that need no provider (returnTo, the admin claim); and the routes of a
 * service whose provider cannot be reached or that has none.
 */

const entry = { id: 'corp', name: 'Corp', issuer: 'https://id.example.org', clientId: 'c', clientSecret: 's' };
const load = (env: Record<string, string>) => loadConfig(env, { dataDir: '/tmp/maproom-unused' });
const refusal = (env: Record<string, string>) => {
  try {
    load(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
};

test('OIDC_ISSUER and its kin make the provider `oidc`; OIDC_PROVIDERS adds others, in order', () => {
  const config = load({
    OIDC_ISSUER: 'https://login.example.org/realms/staff',
    OIDC_CLIENT_ID: 'maproom',
    OIDC_CLIENT_SECRET: 'secret',
    OIDC_ADMIN_CLAIM: 'groups=maproom-admins',
    OIDC_PROVIDERS: JSON.stringify([{ ...entry, adminClaim: 'roles=admin' }]),
  });
  assert.deepEqual(oidcProvidersOf(config), [
    {
      id: 'oidc',
      name: 'Single sign-on',
      issuer: 'https://login.example.org/realms/staff',
      clientId: 'maproom',
      clientSecret: 'secret',
      adminClaim: 'groups=maproom-admins',
    },
    { ...entry, adminClaim: 'roles=admin' },
  ]);
  assert.deepEqual(oidcProvidersOf(load({})), [], 'none configured: the quick start needs no provider');
});

test('a wrong provider setting stops the start with a sentence that names it', () => {
  const providers = (list: unknown) => ({ OIDC_PROVIDERS: typeof list === 'string' ? list : JSON.stringify(list) });
  const cases: [Record<string, string>, RegExp][] = [
    [providers('[{"id": "corp",'), /OIDC_PROVIDERS is not JSON/],
    [providers({ ...entry }), /must be a JSON list/],
    [providers([entry, { ...entry, name: 'Again' }]), /"corp" is used twice/],
    [
      {
        ...providers([{ ...entry, id: 'oidc' }]),
        OIDC_ISSUER: 'https://a.example',
        OIDC_CLIENT_ID: 'a',
        OIDC_CLIENT_SECRET: 'b',
      },
      /"oidc" is used twice/,
    ],
    [providers([{ ...entry, clientSecret: undefined }]), /OIDC_PROVIDERS\[0\]\.clientSecret is required/],
    [providers([entry, { ...entry, id: 'b', issuer: '' }]), /OIDC_PROVIDERS\[1\]\.issuer is required/],
    [providers([{ ...entry, id: '../admin' }]), /OIDC_PROVIDERS\[0\]\.id must be 1 to 40 lower-case letters/],
    [providers([{ ...entry, id: 'Corp' }]), /\.id must be/],
    [providers([{ ...entry, issuer: 'ftp://id.example.org' }]), /\.issuer must be an https address/],
    [providers([{ ...entry, issuer: 'http://id.example.org' }]), /\.issuer must be an https address/],
    [
      { OIDC_ISSUER: 'http://a.example', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' },
      /OIDC_ISSUER must be an https address/,
    ],
    [providers([{ ...entry, adminClaim: 'groups' }]), /\.adminClaim must be claim=value/],
    [providers([{ ...entry, secret: 'x' }]), /unknown fields: secret/],
    [providers(['corp']), /OIDC_PROVIDERS\[0\] must be an object/],
    [{ OIDC_ISSUER: 'https://a.example', OIDC_CLIENT_ID: 'a' }, /set all three or none/],
  ];
  for (const [env, expected] of cases) assert.match(refusal(env), expected, JSON.stringify(env));
});

test('returnTo: a path of this site, else /', () => {
  for (const kept of ['/', '/r/abcdefghij', '/p/abcdefghij?slide=2#x', '/a//b'])
    assert.equal(safeReturnTo(kept), kept, kept);
  const refused = [
    '//evil.example',
    '/\\evil.example',
    '/a\\b',
    'https://evil.example',
    'evil',
    '',
    '/\t/evil',
    '/x\r\n',
  ];
  for (const value of [...refused, undefined, 42, ['/'], `/${'a'.repeat(3000)}`])
    assert.equal(safeReturnTo(value), '/', JSON.stringify(value));
});

test("the callback's code and state never reach a log line", () => {
  assert.equal(
    scrubUrl('/api/auth/oidc/corp/callback?code=secret-code&state=secret-state&iss=https%3A%2F%2Fid.example'),
    '/api/auth/oidc/corp/callback?code=[REDACTED]&state=[REDACTED]&iss=https%3A%2F%2Fid.example',
  );
});

test('the admin claim: equal to the value, or a list holding it', () => {
  assert.equal(namesAdmin('groups=admins', { groups: ['staff', 'admins'] }), true);
  assert.equal(namesAdmin('groups=admins', { groups: 'admins' }), true);
  assert.equal(namesAdmin('groups=admins', { groups: ['admins-x'] }), false);
  assert.equal(namesAdmin('groups=admins', { groups: 'staff,admins' }), false);
  assert.equal(namesAdmin('groups=admins', {}), false);
  assert.equal(namesAdmin(undefined, { groups: ['admins'] }), false);
  assert.equal(namesAdmin('role=a=b', { role: 'a=b' }), true, 'the value may hold =');
});

test('without providers: the options list none, and the routes answer 404', async () => {
  const t = await buildTestApp();
  try {
    const options = await call(t.app, 'GET', '/api/auth/providers');
    assert.equal(options.statusCode, 200);
    assert.deepEqual(options.json(), { localAccounts: true, signup: 'open', providers: [] });
    for (const url of ['/api/auth/oidc/oidc/start', '/api/auth/oidc/oidc/callback?code=x&state=y'])
      assert.equal((await call(t.app, 'GET', url)).statusCode, 404, url);
    // The start takes only what it names: anything else is a mistake, said as one.
    assert.equal((await call(t.app, 'GET', '/api/auth/oidc/oidc/start?next=/r/x')).statusCode, 400);
  } finally {
    await t.close();
  }
});

test('a provider that cannot be reached: the start answers the landing page with provider_unavailable', async () => {
  const t = await buildTestApp({
    oidcIssuer: 'https://127.0.0.1:9/unreachable',
    oidcClientId: 'maproom',
    oidcClientSecret: 'secret',
    oidcName: 'Staff login',
  });
  try {
    const options = (await call(t.app, 'GET', '/api/auth/providers')).json();
    assert.deepEqual(options.providers, [{ id: 'oidc', name: 'Staff login' }]);
    const start = await call(t.app, 'GET', '/api/auth/oidc/oidc/start?returnTo=//evil.example');
    assert.equal(start.statusCode, 302);
    assert.equal(start.headers.location, '/signed-in#error=provider_unavailable&returnTo=%2F');
    const health = await call(t.app, 'GET', '/api/health');
    assert.equal(health.statusCode, 200);
  } finally {
    await t.close();
  }
});
