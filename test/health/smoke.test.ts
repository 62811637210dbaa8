import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildTestApp, call, TEST_DB, type TestApp } from '../helpers.js';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

test('health reports the database in use', async () => {
  const res = await call(t.app, 'GET', '/api/health');
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { status: 'ok', database: TEST_DB });
});
