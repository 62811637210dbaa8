import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addMember,
  assertOk,
  call,
  createRoom,
  followVerificationLink,
  type HistoryEvent,
  issueToken,
  PASSWORD,
  roomHistory,
  scaffoldSuite,
  type TestUser,
  uniqueEmail,
} from '../helpers.js';
import { createInlineLayer } from '../support/layers.js';
import { HistoryRepository } from '../../src/modules/history/history.repository.js';
import { HistoryService } from '../../src/modules/history/history.service.js';
import { TokensRepository } from '../../src/modules/tokens/tokens.repository.js';
import { ActorNames } from '../../src/modules/users/actor-names.js';
import { UsersRepository } from '../../src/modules/users/users.repository.js';

/**
 * Names everywhere: history entries carry the actor's display name (a user's name,
 * else e-mail; a token's name) and the object's title or name; comments and replies their
 * authors' names, for every member (docs/decisions.md, "Names in answers").
 */

let ann: TestUser;

const s = scaffoldSuite({ rooms: [] }, async () => {
  const { token, user } = assertOk(
    await call(s.t.app, 'POST', '/api/auth/signup', {
      body: { email: uniqueEmail('ann'), password: PASSWORD, name: 'Ann Example' },
    }),
    201,
  );
  await followVerificationLink(s.t.app, user.email);
  ann = { token, id: user.id, email: user.email };
});

async function freshRoom() {
  const roomId = await createRoom(s.t.app, s.users.owner);
  await addMember(s.t.app, s.users.owner, roomId, ann, 'editor');
  await addMember(s.t.app, s.users.owner, roomId, s.users.viewer, 'viewer');
  return roomId;
}

/** [type, actor's name, object's name] of each entry, oldest first, as the viewer reads them. */
const named = async (roomId: string) =>
  (await roomHistory(s.t.app, roomId, s.users.viewer.token))
    .reverse()
    .map((e: HistoryEvent) => [e.type, e.actor.name, e.objectName]);

test('history names who did it and what it was called, deletions as the object was', async () => {
  const roomId = await freshRoom();
  const as = (auth: string, method: string, url: string, body?: unknown) =>
    call(s.t.app, method, `/api/rooms/${roomId}${url}`, { auth, body });
  const { marker } = assertOk(
    await as(ann.token, 'POST', '/markers', { latitude: 1, longitude: 2, title: 'Well' }),
    201,
  );
  const { marker: untitled } = assertOk(await as(ann.token, 'POST', '/markers', { latitude: 1, longitude: 2 }), 201);
  const { drawing } = assertOk(
    await as(s.users.owner.token, 'POST', '/drawings', {
      geometry: { type: 'Point', coordinates: [1, 2] },
      label: 'Pin',
    }),
    201,
  );
  assertOk(await as(s.users.owner.token, 'DELETE', `/drawings/${drawing.id}`));
  await createInlineLayer(s.t.app, roomId, ann.token, { name: 'Rivers' });
  const long = 'x'.repeat(100);
  assertOk(
    await as(s.users.viewer.token, 'POST', '/comments', { objectId: marker.id, objectType: 'marker', body: long }),
    201,
  );
  const { token, id: tokenId } = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
  assertOk(await as(token, 'PATCH', `/markers/${untitled.id}`, { title: 'Named by a script' }));
  assertOk(await as(s.users.owner.token, 'PATCH', `/members/${ann.id}`, { role: 'viewer' }));

  assert.deepEqual(await named(roomId), [
    ['marker.created', 'Ann Example', 'Well'],
    ['marker.created', 'Ann Example', null],
    ['drawing.created', s.users.owner.email, 'Pin'],
    ['drawing.deleted', s.users.owner.email, 'Pin'],
    ['layer.created', 'Ann Example', 'Rivers'],
    ['comment.created', s.users.viewer.email, 'x'.repeat(80)],
    ['marker.updated', 'token write', 'Named by a script'],
    ['member.updated', s.users.owner.email, 'Ann Example'],
  ]);

  // A revoked token's entries keep its id; its name went with it.
  assertOk(await call(s.t.app, 'DELETE', `/api/rooms/${roomId}/api-tokens/${tokenId}`, { auth: s.users.owner.token }));
  const [, scripted] = (await roomHistory(s.t.app, roomId, s.users.viewer.token)) as HistoryEvent[];
  assert.deepEqual(scripted?.actor, { kind: 'token', id: tokenId });
});

test('deletions are named as each object was just before, read in one go for the page (no query per deletion)', async () => {
  const roomId = await freshRoom();
  const as = (method: string, url: string, body?: unknown) =>
    call(s.t.app, method, `/api/rooms/${roomId}${url}`, { auth: s.users.owner.token, body });
  const titles = ['One', 'Two', 'Three', 'Four'];
  const ids: string[] = [];
  for (const title of titles)
    ids.push(assertOk(await as('POST', '/markers', { latitude: 1, longitude: 2, title }), 201).marker.id);
  assertOk(await as('PATCH', `/markers/${ids[1]}`, { title: 'Two renamed' }));
  for (const id of ids) assertOk(await as('DELETE', `/markers/${id}`));
  // Deleted, restored, renamed, deleted again: each deletion is named as the marker was before it.
  const [firstDeletion] = (await roomHistory(s.t.app, roomId, s.users.owner.token)).filter(
    (e: HistoryEvent) => e.objectId === ids[0] && e.type === 'marker.deleted',
  );
  assertOk(await as('POST', `/history/${firstDeletion.id}/restore`));
  assertOk(await as('PATCH', `/markers/${ids[0]}`, { title: 'One again' }));
  assertOk(await as('DELETE', `/markers/${ids[0]}`));
  const { marker: untitled } = assertOk(await as('POST', '/markers', { latitude: 1, longitude: 2 }), 201);
  assertOk(await as('DELETE', `/markers/${untitled.id}`));

  const deletions = [
    ['marker.deleted', 'One'],
    ['marker.deleted', 'Two renamed'],
    ['marker.deleted', 'Three'],
    ['marker.deleted', 'Four'],
    ['marker.deleted', 'One again'],
    ['marker.deleted', null],
  ];
  const deletedNames = (events: { type: string; objectName?: string | null }[]) =>
    events
      .filter((e) => e.type.endsWith('.deleted'))
      .reverse()
      .map((e) => [e.type, e.objectName]);
  assert.deepEqual(deletedNames(await roomHistory(s.t.app, roomId, s.users.owner.token)), deletions);

  // The same page read by the service with its repository's reads counted.
  const db = s.t.database.db;
  const repository = new HistoryRepository(db);
  let reads = 0;
  const counted = new Proxy(repository, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function'
        ? (...args: unknown[]) => {
            reads++;
            return value.apply(target, args);
          }
        : value;
    },
  });
  const service = new HistoryService(counted, new ActorNames(new UsersRepository(db), new TokensRepository(db)));
  const room = { id: roomId } as Parameters<HistoryService['page']>[0];
  const { events } = await service.page(room, 50);
  assert.deepEqual(deletedNames(events), deletions);
  assert.ok(reads <= 2, `the page and its deletions' earlier states: ${reads} reads of history, not one per deletion`);
});

test('comments and replies name their authors, for every member', async () => {
  const roomId = await freshRoom();
  const { comment } = assertOk(
    await call(s.t.app, 'POST', `/api/rooms/${roomId}/comments`, {
      auth: ann.token,
      body: { objectId: 'marker-x', objectType: 'marker', body: 'Look here' },
    }),
    201,
  );
  assert.deepEqual(comment.author, { kind: 'user', id: ann.id, name: 'Ann Example' });
  const { token, id: tokenId } = await issueToken(s.t.app, s.users.owner, roomId, ['read', 'write']);
  const { reply } = assertOk(
    await call(s.t.app, 'POST', `/api/rooms/${roomId}/comments/${comment.id}/replies`, {
      auth: token,
      body: { body: 'Seen by the script' },
    }),
    201,
  );
  assert.deepEqual(reply.author, { kind: 'token', id: tokenId, name: 'token read+write' });
  const resolved = assertOk(
    await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/comments/${comment.id}`, {
      auth: s.users.owner.token,
      body: { resolved: true },
    }),
  ).comment;
  assert.equal(resolved.replies[0].author.name, 'token read+write');

  const [listed] = assertOk(
    await call(s.t.app, 'GET', `/api/rooms/${roomId}/comments`, { auth: s.users.viewer.token }),
  ).comments;
  assert.equal(listed.author.name, 'Ann Example');
  assert.deepEqual(
    listed.replies.map((r: { author: { name: string } }) => r.author.name),
    ['token read+write'],
  );
});

test("a public room's anonymous readers and tokens never see members' e-mails (names only)", async () => {
  const roomId = await createRoom(s.t.app, s.users.owner, undefined, { isPublic: true });
  await addMember(s.t.app, s.users.owner, roomId, s.users.editor, 'editor');
  await addMember(s.t.app, s.users.owner, roomId, s.users.viewer, 'viewer');
  const as = (auth: string | undefined, method: string, url: string, body?: unknown) =>
    call(s.t.app, method, `/api/rooms/${roomId}${url}`, { auth, body });
  const { marker } = assertOk(await as(s.users.editor.token, 'POST', '/markers', { latitude: 1, longitude: 2 }), 201);
  const { comment } = assertOk(
    await as(s.users.editor.token, 'POST', '/comments', { objectId: marker.id, objectType: 'marker', body: 'Hi' }),
    201,
  );
  assertOk(await as(s.users.viewer.token, 'POST', `/comments/${comment.id}/replies`, { body: 'Yes' }), 201);
  assertOk(await as(s.users.owner.token, 'PATCH', `/members/${s.users.viewer.id}`, { role: 'editor' }));
  const { token } = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
  const emails = [s.users.owner.email, s.users.editor.email, s.users.viewer.email];
  for (const auth of [undefined, token]) {
    for (const url of ['/history?limit=500', '/comments']) {
      const res = await as(auth, 'GET', url);
      assert.equal(res.statusCode, 200);
      for (const email of emails)
        assert.ok(!res.body.includes(email), `${url} shows ${email} to ${auth ?? 'anonymous'}`);
    }
  }
  // A comment's answer and live change (what history stores) carry no e-mail either.
  assert.deepEqual(comment.author, { kind: 'user', id: s.users.editor.id });
  // Members still see them.
  const [roleChange] = await roomHistory(s.t.app, roomId, s.users.viewer.token);
  assert.equal(roleChange?.objectName, s.users.viewer.email);
  assert.equal(roleChange?.actor.name, s.users.owner.email);
});
