/**
 * An upgrade: the service starts on a deployment an earlier release made (commit e26cbbf, its
 * migrations through 0018; test/fixtures/upgrade/make.ts made it), migrates it, and everything
 * in it reads and works as before: the account signs in with its password, the room token
 * still reads, the room's markers, drawing, comment and layer are there, and writes go on.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { adminQuery, assertOk, buildTestApp, call, PG_ADMIN_URL, TEST_DB, type TestApp } from '../helpers.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/upgrade/e26cbbf');
const made = JSON.parse(readFileSync(path.join(FIXTURE, `${TEST_DB}.json`), 'utf8')) as {
  user: { email: string; password: string };
  roomId: string;
  roomToken: string;
  layerId: string;
  markers: string[];
  jwtSecret?: string;
};

const signIn = { email: made.user.email, password: made.user.password };
let t: TestApp;
const dataDir = mkdtempSync(path.join(tmpdir(), 'maproom-upgrade-'));
let dropDatabase: () => Promise<unknown> = async () => undefined;

/** The earlier release's PostgreSQL database, from its dump, in a database of its own. */
async function restoredDatabase(): Promise<string> {
  const name = `maproom_upgrade_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  dropDatabase = () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(readFileSync(path.join(FIXTURE, 'postgres.sql'), 'utf8'));
  } finally {
    await client.end();
  }
  return url.toString();
}

before(async () => {
  if (TEST_DB === 'sqlite') cpSync(path.join(FIXTURE, 'sqlite'), dataDir, { recursive: true });
  const databaseUrl = TEST_DB === 'postgres' ? await restoredDatabase() : undefined;
  t = await buildTestApp({ dataDir, ...(databaseUrl && { databaseUrl, jwtSecret: made.jwtSecret }) });
});
after(async () => {
  await t?.close();
  await dropDatabase();
  rmSync(dataDir, { recursive: true, force: true });
});

test("the earlier release's account signs in with its password, and its room token still reads", async () => {
  const login = assertOk(await call(t.app, 'POST', '/api/auth/login', { body: signIn }));
  const rooms = assertOk(await call(t.app, 'GET', '/api/rooms', { auth: login.token }));
  const listed = (rooms.rooms ?? rooms) as { roomId?: string; id?: string; name: string }[];
  assert.ok(
    listed.some((room) => (room.roomId ?? room.id) === made.roomId && room.name === 'Before the upgrade'),
    JSON.stringify(rooms),
  );
  const room = assertOk(await call(t.app, 'GET', `/api/rooms/${made.roomId}`, { auth: made.roomToken }));
  assert.equal(room.name, 'Before the upgrade');
});

test('its markers, drawing, comment and layer are there, and the room takes new writes', async () => {
  const { token } = assertOk(await call(t.app, 'POST', '/api/auth/login', { body: signIn }));
  const base = `/api/rooms/${made.roomId}`;
  const { markers } = assertOk(await call(t.app, 'GET', `${base}/markers`, { auth: token }));
  assert.deepEqual(markers.map((m: { title: string }) => m.title).sort(), [...made.markers].sort());
  const bridge = markers.find((m: { title: string }) => m.title === 'Bridge');
  assert.deepEqual(bridge.tags, ['river']);
  const { drawings } = assertOk(await call(t.app, 'GET', `${base}/drawings`, { auth: token }));
  assert.deepEqual(
    drawings.map((d: { label: string }) => d.label),
    ['Survey area'],
  );
  const { comments } = assertOk(await call(t.app, 'GET', `${base}/comments`, { auth: token }));
  assert.deepEqual(
    comments.map((c: { body: string }) => c.body),
    ['Check the railing'],
  );
  const items = assertOk(
    await call(t.app, 'GET', `${base}/ogc/collections/${made.layerId}/items`, { auth: made.roomToken }),
  );
  assert.deepEqual(items.features.map((f: { properties: { name: string } }) => f.properties.name).sort(), [
    'east',
    'west',
  ]);
  const created = await call(t.app, 'POST', `${base}/markers`, {
    auth: token,
    body: { latitude: 46.97, longitude: 7.43, title: 'After the upgrade' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const { events } = assertOk(await call(t.app, 'GET', `${base}/history?limit=50`, { auth: token }));
  // The new change follows the earlier release's in one history (newest first).
  const versions = events.map((e: { version: number }) => e.version);
  assert.equal(events.length, 7, 'three markers, the drawing, the comment, the layer, and the new marker');
  assert.deepEqual(
    versions,
    [...versions].sort((a, b) => b - a),
  );
  assert.equal(created.json().marker.title, 'After the upgrade');
});
