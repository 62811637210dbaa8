import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PasswordHasher } from '../../src/auth/passwords.js';
import { loadConfig } from '../../src/config.js';

test("the default cost is OWASP's scrypt N=2^17; each hash records its parameters and salt", async () => {
  const cost = loadConfig({}).passwordHashCost;
  assert.equal(cost, 17);
  const hasher = new PasswordHasher(cost);
  const [first, second] = [await hasher.hash('correct horse'), await hasher.hash('correct horse')];
  assert.match(first, /^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.notEqual(first, second, 'salted');
  assert.equal(await hasher.verify('correct horse', first), true);
  assert.equal(await hasher.verify('correct horsf', first), false);
});

test('a hash made at another cost still verifies (its parameters travel with it)', async () => {
  const cheap = await new PasswordHasher(12).hash('pässwörd');
  assert.equal(await new PasswordHasher(17).verify('pa\u0308sswo\u0308rd', cheap), true, 'NFKC-normalised');
  assert.equal(await new PasswordHasher(17).verifyNothing('anything'), false);
});
