/**
 * Many writes to one room at once (the write path's group commit): every create is answered
 * with its own marker, the room's history holds each change once with consecutive versions,
 * a live client sees them all in version order, and a write that fails among them fails alone.
 * Contract: docs/http-interface.md (Markers, Events) and docs/decisions.md ("One write path").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertOk, call, type HistoryEvent, scaffold, type TestApp, type Users } from '../helpers.js';
import { LiveClient } from '../support/live-client.js';

let t: TestApp;
let users: Users;
let room: string;
let wsBase: string;
const clients: LiveClient[] = [];

before(async () => {
  ({ t, users, room, wsBase } = await scaffold({ listen: true }));
});
after(async () => {
  for (const client of clients) client.terminate();
  await t?.close();
});

const create = (title: string) =>
  call(t.app, 'POST', `/api/rooms/${room}/markers`, {
    auth: users.editor.token,
    body: { latitude: 46.5, longitude: 6.6, title },
  });

async function historyAfter(version: number): Promise<HistoryEvent[]> {
  const res = await call(t.app, 'GET', `/api/rooms/${room}/history?limit=500`, { auth: users.owner.token });
  return (assertOk(res).events as HistoryEvent[]).filter((e) => e.version > version).reverse();
}

async function openLive() {
  const client = new LiveClient(`${wsBase}/api/rooms/${room}/live?access_token=${users.owner.token}`);
  clients.push(client);
  const { version } = await client.at(0);
  return { client, version: version as number };
}

test('40 creates at once: each answered with its own marker, one history entry and one live event each, in version order', async () => {
  const { client, version } = await openLive();
  const titles = Array.from({ length: 40 }, (_, i) => `concurrent ${i}`);
  const answers = await Promise.all(titles.map(create));
  const markers = answers.map((res) => assertOk(res, 201).marker as { id: string; title: string });
  assert.deepEqual(
    markers.map((m) => m.title),
    titles,
    'each caller gets the marker it sent',
  );
  assert.equal(new Set(markers.map((m) => m.id)).size, 40, 'forty distinct markers');

  const entries = await historyAfter(version);
  assert.deepEqual(
    entries.map((e) => e.version),
    titles.map((_, i) => version + 1 + i),
    'consecutive versions, no gap, none twice',
  );
  assert.ok(entries.every((e) => e.type === 'marker.created'));
  assert.deepEqual(new Set(entries.map((e) => e.objectId)), new Set(markers.map((m) => m.id)));

  const messages = (await client.waitFor(41)).slice(1);
  await client.settled();
  assert.deepEqual(
    messages.map((m) => m.version),
    entries.map((e) => e.version),
    'the live client saw every change once, in version order',
  );
  assert.deepEqual(
    messages.map((m) => m.objectId),
    entries.map((e) => e.objectId),
    'each version is the same change live as in history',
  );
  for (const marker of markers) {
    const read = assertOk(
      await call(t.app, 'GET', `/api/rooms/${room}/markers/${marker.id}`, { auth: users.viewer.token }),
    );
    assert.equal(read.marker.title, marker.title, 'every acknowledged create was committed');
  }
});

test('a write that fails among many at once fails alone: the others are saved, versions stay gapless', async () => {
  const doomed = assertOk(await create('deleted twice'), 201).marker as { id: string };
  const { client, version } = await openLive();
  const remove = () => call(t.app, 'DELETE', `/api/rooms/${room}/markers/${doomed.id}`, { auth: users.editor.token });
  // Two deletes of one marker among creates: whichever runs second finds no marker (404) inside
  // the shared transaction; the creates around it must not be undone with it.
  const answers = await Promise.all([
    ...Array.from({ length: 10 }, (_, i) => create(`before ${i}`)),
    remove(),
    remove(),
    ...Array.from({ length: 10 }, (_, i) => create(`after ${i}`)),
  ]);
  const deletes = answers.slice(10, 12).map((res) => res.statusCode);
  assert.deepEqual([...deletes].sort(), [200, 404], `one delete succeeds and one is 404, got ${deletes}`);
  const created = [...answers.slice(0, 10), ...answers.slice(12)].map((res) => assertOk(res, 201).marker.id as string);

  const entries = await historyAfter(version);
  assert.deepEqual(
    entries.map((e) => e.version),
    Array.from({ length: 21 }, (_, i) => version + 1 + i),
    'twenty creates and one delete, consecutive versions',
  );
  assert.deepEqual(
    entries.filter((e) => e.type === 'marker.deleted').map((e) => e.objectId),
    [doomed.id],
  );
  assert.deepEqual(
    new Set(entries.filter((e) => e.type === 'marker.created').map((e) => e.objectId)),
    new Set(created),
  );
  const list = assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.viewer.token }));
  const listed = new Set((list.markers as { id: string }[]).map((m) => m.id));
  assert.ok(
    created.every((id) => listed.has(id)),
    'every acknowledged create is in the room',
  );
  assert.ok(!listed.has(doomed.id), 'the deleted marker is gone');

  const messages = (await client.waitFor(22)).slice(1);
  await client.settled();
  assert.deepEqual(
    messages.map((m) => m.version),
    entries.map((e) => e.version),
    'live in version order, the failed delete sent nothing',
  );
});
