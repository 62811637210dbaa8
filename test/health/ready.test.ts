import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { BlobStore } from '../../src/infra/blob-store.js';
import { buildTestApp, call, type TestApp } from '../helpers.js';

/**
 * GET /api/ready: each part's state (database, redis, objectStore), 200 while every
 * configured part answers, 503 while one does not. Redis is in test/scale-out/instance-roles.test.ts.
 */

const apps: TestApp[] = [];
after(async () => {
  for (const t of apps) await t.close();
});

test('the embedded service is ready: database and data directory answer, no Redis is configured', async () => {
  const t = await buildTestApp();
  apps.push(t);
  const res = await call(t.app, 'GET', '/api/ready');
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), { status: 'ok', database: 'ok', redis: 'none', objectStore: 'ok' });
});

test('an object store that does not answer makes the instance unready (503), naming the part', async () => {
  let reachable = true;
  const t = await buildTestApp(
    {},
    {
      wrapBlobStore: (store): BlobStore =>
        Object.assign(Object.create(store), {
          ping: async () => {
            if (!reachable) throw new Error('connection refused');
          },
        }),
    },
  );
  apps.push(t);
  assert.equal((await call(t.app, 'GET', '/api/ready')).statusCode, 200);
  reachable = false;
  const res = await call(t.app, 'GET', '/api/ready');
  assert.equal(res.statusCode, 503, res.body);
  assert.deepEqual(res.json(), { status: 'unavailable', database: 'ok', redis: 'none', objectStore: 'unavailable' });
  // Liveness is another question: the process and its database are fine.
  assert.equal((await call(t.app, 'GET', '/api/health')).statusCode, 200);
});
