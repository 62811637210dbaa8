import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assertError,
  assertOk,
  assertValidation,
  call,
  createRoom,
  type HistoryEvent,
  issueToken,
  postMultipart,
  roomHistory,
  scaffoldSuite,
} from '../helpers.js';
import { jpeg } from '../support/access-matrix-world.js';
import { createInlineLayer } from '../support/layers.js';

/**
 * Restore: `POST /api/rooms/:roomId/history/:entryId/restore` puts an object back as
 * an entry kept it (after a create or update; before a delete), with the same id, through the
 * write path (docs/decisions.md, "Restore and snapshot").
 */

const s = scaffoldSuite();

const base = () => `/api/rooms/${s.room}`;
const as = (auth: string, method: string, url: string, body?: unknown) =>
  call(s.t.app, method, `${base()}${url}`, { auth, body });
const owner = (method: string, url: string, body?: unknown) => as(s.users.owner.token, method, url, body);
const restore = (entryId: string, body?: unknown, auth = s.users.owner.token) =>
  call(s.t.app, 'POST', `${base()}/history/${entryId}/restore`, { auth, body });

/** The newest entry of an object (of a type, when given). */
async function entryOf(objectId: string, type?: string): Promise<HistoryEvent> {
  const entry = (await roomHistory(s.t.app, s.room, s.users.owner.token)).find(
    (e) => e.objectId === objectId && (type === undefined || e.type === type),
  );
  assert.ok(entry, `an entry of ${objectId} ${type ?? ''}`);
  return entry;
}

test('a deleted marker comes back as it was before the delete, with its id; the restore is a new entry', async () => {
  const { marker } = assertOk(await owner('POST', '/markers', { latitude: 46.9, longitude: 7.4, title: 'Bern' }), 201);
  assertOk(await owner('PATCH', `/markers/${marker.id}`, { title: 'Bern old town', tags: ['capital'] }));
  assertOk(await owner('DELETE', `/markers/${marker.id}`));
  const deleted = await entryOf(marker.id, 'marker.deleted');

  const answer = assertOk(await restore(deleted.id));
  assert.equal(answer.objectType, 'marker');
  assert.equal(answer.objectId, marker.id);
  assert.equal(answer.restoredFrom, deleted.id);
  assert.deepEqual(answer.notes, []);
  assert.equal(answer.overwrote, null);
  const back = assertOk(await owner('GET', `/markers/${marker.id}`)).marker;
  assert.equal(back.title, 'Bern old town');
  assert.deepEqual(back.tags, ['capital']);
  assert.equal(back.createdAt, marker.createdAt, 'it keeps its creation');
  assert.deepEqual(answer.object, back);

  const newest = await entryOf(marker.id);
  assert.equal(newest.type, 'marker.created');
  assert.equal(newest.version, deleted.version + 1);
  assert.deepEqual(newest.changes, { restoredFrom: deleted.id, restoredVersion: deleted.version });
});

test('restoring an earlier state says which later change it overwrote; ifLatestVersion refuses instead', async () => {
  const { marker } = assertOk(await owner('POST', '/markers', { latitude: 1, longitude: 2, title: 'First' }), 201);
  const created = await entryOf(marker.id, 'marker.created');
  assertOk(await as(s.users.editor.token, 'PATCH', `/markers/${marker.id}`, { title: 'Edited by the editor' }));
  const edit = await entryOf(marker.id, 'marker.updated');

  // An undo that must not overwrite someone else's later edit: refused, nothing changes.
  const refused = assertError(await restore(created.id, { ifLatestVersion: created.version }), 409, 'changed_since');
  assert.match(refused.message, new RegExp(`version ${edit.version}`));
  assert.equal(assertOk(await owner('GET', `/markers/${marker.id}`)).marker.title, 'Edited by the editor');
  assert.equal((await entryOf(marker.id)).id, edit.id, 'no entry for a refused restore');

  const answer = assertOk(await restore(created.id, { ifLatestVersion: edit.version }));
  assert.equal(answer.object.title, 'First');
  assert.equal(answer.overwrote.id, edit.id);
  // Named as the timeline names it: the owner sees a member without a name by e-mail.
  assert.deepEqual(answer.overwrote.actor, { kind: 'user', id: s.users.editor.id, name: s.users.editor.email });
  assert.equal(answer.overwrote.objectName, 'Edited by the editor');
  assert.equal(answer.overwrote.laterEntries, 1);
  const newest = await entryOf(marker.id);
  assert.equal(newest.type, 'marker.updated');
  assert.equal(newest.changes?.overwroteVersion, edit.version);
  assert.equal(assertOk(await owner('GET', `/markers/${marker.id}`)).marker.title, 'First');
});

test('a photo that left storage with the delete does not come back, and the restore says so', async () => {
  const image = await jpeg();
  const upload = assertOk(
    await postMultipart(
      s.t.app,
      `${base()}/markers/upload-image`,
      { image: { data: image, filename: 'a.jpg', type: 'image/jpeg' } },
      s.users.owner.token,
    ),
  );
  const { marker } = assertOk(
    await owner('POST', '/markers', {
      latitude: 3,
      longitude: 4,
      title: 'With photo',
      imageKey: upload.imageKey,
      thumbnailKey: upload.thumbnailKey,
    }),
    201,
  );
  assertOk(await owner('DELETE', `/markers/${marker.id}`));
  const answer = assertOk(await restore((await entryOf(marker.id, 'marker.deleted')).id));
  assert.equal(answer.object.title, 'With photo');
  assert.equal(answer.object.imageKey, null);
  assert.equal(answer.object.thumbnailKey, null);
  assert.equal(answer.notes.length, 1);
  assert.match(answer.notes[0], /photo/);
  assert.deepEqual((await entryOf(marker.id)).changes?.notes, answer.notes, 'the entry says so too');
  const res = await owner('GET', `/markers/image?key=${encodeURIComponent(upload.imageKey)}`);
  assert.equal(res.statusCode, 404, 'the photo stays gone');
});

test('drawings, comments with their replies, and replies come back', async () => {
  const { drawing } = assertOk(
    await owner('POST', '/drawings', { geometry: { type: 'Point', coordinates: [7, 46] }, label: 'Here' }),
    201,
  );
  assertOk(await owner('DELETE', `/drawings/${drawing.id}`));
  assertOk(await restore((await entryOf(drawing.id, 'drawing.deleted')).id));
  assert.deepEqual(
    assertOk(await owner('GET', '/drawings')).drawings.find((d: { id: string }) => d.id === drawing.id)?.label,
    'Here',
  );

  const { comment } = assertOk(
    await owner('POST', '/comments', { objectId: drawing.id, objectType: 'drawing', body: 'Look' }),
    201,
  );
  const { reply } = assertOk(
    await as(s.users.viewer.token, 'POST', `/comments/${comment.id}/replies`, { body: 'Seen' }),
    201,
  );
  // The reply is kept by the comment's own entry only when it was there: resolve first.
  assertOk(await owner('PATCH', `/comments/${comment.id}`, { resolved: true }));
  assertOk(await owner('DELETE', `/comments/${comment.id}`));
  const replyEntry = await entryOf(reply.id, 'reply.created');
  assertError(await restore(replyEntry.id), 409, 'not_restorable');

  const answer = assertOk(await restore((await entryOf(comment.id, 'comment.deleted')).id));
  assert.equal(answer.object.body, 'Look');
  assert.equal(answer.object.resolved, true);
  assert.deepEqual(
    answer.object.replies.map((r: { id: string; body: string }) => [r.id, r.body]),
    [[reply.id, 'Seen']],
  );
  const listed = assertOk(await owner('GET', '/comments')).comments.find((c: { id: string }) => c.id === comment.id);
  assert.deepEqual(listed, answer.object);
});

test('a deleted slide comes back at the end of the deck, without objects gone since', async () => {
  const view = { lat: 46, lng: 7, zoom: 10 };
  const { marker } = assertOk(await owner('POST', '/markers', { latitude: 46, longitude: 7 }), 201);
  const { marker: kept } = assertOk(await owner('POST', '/markers', { latitude: 46, longitude: 7 }), 201);
  const { slide } = assertOk(
    await owner('POST', '/presentation/slides', { title: 'One', view, markerIds: [marker.id, kept.id] }),
    201,
  );
  assertOk(await owner('POST', '/presentation/slides', { title: 'Two', view }), 201);
  assertOk(await owner('DELETE', `/presentation/slides/${slide.id}`));
  assertOk(await owner('DELETE', `/markers/${marker.id}`));

  const answer = assertOk(await restore((await entryOf(slide.id, 'slide.deleted')).id));
  assert.deepEqual(answer.object.markerIds, [kept.id]);
  assert.match(answer.notes.join(' '), new RegExp(marker.id));
  const slides = assertOk(await owner('GET', '/presentation/slides')).slides;
  assert.deepEqual(
    slides.map((s: { title: string; position: number }) => [s.title, s.position]),
    [
      ['Two', 0],
      ['One', 1],
    ],
  );
});

test("a layer's metadata comes back; a deleted layer cannot (its features left with it)", async () => {
  const layer = await createInlineLayer(s.t.app, s.room, s.users.owner.token, { name: 'Parcels' });
  const created = await entryOf(layer.id, 'layer.created');
  assertOk(await owner('PATCH', `/layers/${layer.id}`, { name: 'Renamed', style: { color: 'ff0000' } }));
  const answer = assertOk(await restore(created.id));
  assert.equal(answer.object.name, 'Parcels');
  assert.equal(answer.object.style.color, layer.style.color);
  assert.equal(answer.object.featureCount, layer.featureCount);

  assertOk(await call(s.t.app, 'DELETE', `/api/layers/${layer.id}`, { auth: s.users.owner.token }));
  const refused = assertError(await restore(created.id), 409, 'not_restorable');
  assert.match(refused.message, /upload/);
  assertError(await restore((await entryOf(layer.id, 'layer.deleted')).id), 409, 'not_restorable');
});

test('entries that are not of one object, unknown entries and bad bodies are refused', async () => {
  assertOk(await call(s.t.app, 'PATCH', `${base()}`, { auth: s.users.owner.token, body: { name: 'Renamed room' } }));
  const settings = await entryOf(s.room, 'room.updated');
  assertError(await restore(settings.id), 409, 'not_restorable');
  assertError(await restore('event-doesnotexist'), 404, 'not_found');
  assertValidation(await restore(settings.id, { ifLatestVersion: 0 }), 'ifLatestVersion');
  assertValidation(await restore(settings.id, { unknown: 1 }), 'unknown');

  // Another room's entry is not found in this one.
  const otherRoom = await createRoom(s.t.app, s.users.owner);
  const { marker } = assertOk(
    await call(s.t.app, 'POST', `/api/rooms/${otherRoom}/markers`, {
      auth: s.users.owner.token,
      body: { latitude: 1, longitude: 1 },
    }),
    201,
  );
  const [otherEntry] = await roomHistory(s.t.app, otherRoom, s.users.owner.token);
  assert.equal(otherEntry?.objectId, marker.id);
  assertError(await restore(otherEntry.id), 404, 'not_found');
});

test('restore needs write: a viewer is refused; a token with write restores; write-only learns only ids', async () => {
  const { marker } = assertOk(await owner('POST', '/markers', { latitude: 5, longitude: 6, title: 'Secret' }), 201);
  assertOk(await owner('DELETE', `/markers/${marker.id}`));
  const deleted = await entryOf(marker.id, 'marker.deleted');
  assertError(await restore(deleted.id, undefined, s.users.viewer.token), 403, 'forbidden');
  assertError(await restore(deleted.id, undefined, s.users.stranger.token), 403, 'forbidden');

  const { token } = await issueToken(s.t.app, s.users.owner, s.room, ['write']);
  const answer = assertOk(await restore(deleted.id, undefined, token));
  assert.deepEqual(answer.object, { id: marker.id }, 'a write-only token learns nothing it did not send');
  const newest = await entryOf(marker.id);
  assert.equal(newest.actor.kind, 'token');
  assert.equal(assertOk(await owner('GET', `/markers/${marker.id}`)).marker.title, 'Secret');
});

test('a room token restores only the comments and replies it wrote, as it deletes only those', async () => {
  const { marker } = assertOk(await owner('POST', '/markers', { latitude: 7, longitude: 8 }), 201);
  const { token } = await issueToken(s.t.app, s.users.owner, s.room, ['read', 'write']);
  const comment = async (auth: string, body: string) =>
    assertOk(await as(auth, 'POST', '/comments', { objectId: marker.id, objectType: 'marker', body }), 201).comment;
  const reply = async (auth: string, commentId: string, body: string) =>
    assertOk(await as(auth, 'POST', `/comments/${commentId}/replies`, { body }), 201).reply;

  // Another's comment and reply, deleted by the owner: the token may not bring them back.
  const theirs = await comment(s.users.editor.token, 'By the editor');
  const theirReply = await reply(s.users.editor.token, theirs.id, 'Reply by the editor');
  assertOk(await owner('DELETE', `/comments/${theirs.id}/replies/${theirReply.id}`));
  const refusedReply = assertError(
    await restore((await entryOf(theirReply.id, 'reply.deleted')).id, undefined, token),
    403,
    'forbidden',
  );
  assert.match(refusedReply.message, /replies it wrote/);
  assertOk(await owner('DELETE', `/comments/${theirs.id}`));
  assertError(await restore((await entryOf(theirs.id, 'comment.deleted')).id, undefined, token), 403, 'forbidden');
  // Nor an earlier state of another's comment that is still there.
  const standing = await comment(s.users.editor.token, 'Standing');
  assertError(await restore((await entryOf(standing.id, 'comment.created')).id, undefined, token), 403, 'forbidden');
  const listed = assertOk(await owner('GET', '/comments')).comments.map((c: { id: string }) => c.id);
  assert.ok(!listed.includes(theirs.id), 'the refused restore changed nothing');

  // Its own come back.
  const mine = await comment(token, 'By the token');
  const myReply = await reply(token, mine.id, 'Reply by the token');
  assertOk(await as(token, 'DELETE', `/comments/${mine.id}/replies/${myReply.id}`));
  assertOk(await restore((await entryOf(myReply.id, 'reply.deleted')).id, undefined, token));
  assertOk(await as(token, 'DELETE', `/comments/${mine.id}`));
  const back = assertOk(await restore((await entryOf(mine.id, 'comment.deleted')).id, undefined, token));
  assert.equal(back.object.body, 'By the token');

  // A member with write restores another's.
  assertOk(await restore((await entryOf(theirs.id, 'comment.deleted')).id, undefined, s.users.editor.token));
});

test('a delete with ifLatestVersion (the undo of a create) is refused when someone changed the object since', async () => {
  // A marker created by the owner, then edited by the editor: the owner's undo of the create must not delete it.
  const { marker } = assertOk(await owner('POST', '/markers', { latitude: 3, longitude: 4, title: 'Mine' }), 201);
  const created = await entryOf(marker.id, 'marker.created');
  assertOk(await as(s.users.editor.token, 'PATCH', `/markers/${marker.id}`, { title: 'Theirs now' }));
  const edit = await entryOf(marker.id, 'marker.updated');
  const refused = assertError(
    await owner('DELETE', `/markers/${marker.id}?ifLatestVersion=${created.version}`),
    409,
    'changed_since',
  );
  assert.match(refused.message, new RegExp(`version ${edit.version}`));
  assert.equal(assertOk(await owner('GET', `/markers/${marker.id}`)).marker.title, 'Theirs now', 'not deleted');
  assert.equal((await entryOf(marker.id)).id, edit.id, 'no entry for a refused delete');
  assertOk(await owner('DELETE', `/markers/${marker.id}?ifLatestVersion=${edit.version}`));

  // The same for the other objects an undo of a create deletes.
  const { drawing } = assertOk(
    await owner('POST', '/drawings', { geometry: { type: 'Point', coordinates: [1, 2] }, label: 'a' }),
    201,
  );
  const drawn = await entryOf(drawing.id, 'drawing.created');
  assertOk(await as(s.users.editor.token, 'PATCH', `/drawings/${drawing.id}`, { label: 'b' }));
  assertError(await owner('DELETE', `/drawings/${drawing.id}?ifLatestVersion=${drawn.version}`), 409, 'changed_since');
  assertOk(await owner('DELETE', `/drawings/${drawing.id}?ifLatestVersion=${(await entryOf(drawing.id)).version}`));

  const { marker: topic } = assertOk(await owner('POST', '/markers', { latitude: 7, longitude: 8 }), 201);
  const { comment } = assertOk(
    await owner('POST', '/comments', { body: 'a comment', objectType: 'marker', objectId: topic.id }),
    201,
  );
  const said = await entryOf(comment.id, 'comment.created');
  assertOk(await as(s.users.editor.token, 'PATCH', `/comments/${comment.id}`, { resolved: true }));
  assertError(await owner('DELETE', `/comments/${comment.id}?ifLatestVersion=${said.version}`), 409, 'changed_since');
  assertOk(await owner('DELETE', `/comments/${comment.id}?ifLatestVersion=${(await entryOf(comment.id)).version}`));

  // A comment answered since: the undo of its create would take the reply with it, so it is refused.
  const { comment: asked } = assertOk(
    await owner('POST', '/comments', { body: 'a question', objectType: 'marker', objectId: topic.id }),
    201,
  );
  const askedAt = (await entryOf(asked.id, 'comment.created')).version;
  assertOk(await as(s.users.editor.token, 'POST', `/comments/${asked.id}/replies`, { body: 'an answer' }), 201);
  assertError(await owner('DELETE', `/comments/${asked.id}?ifLatestVersion=${askedAt}`), 409, 'changed_since');
  const kept = assertOk(await owner('GET', '/comments')).comments.find((c: { id: string }) => c.id === asked.id);
  assert.equal((kept as { replies: unknown[] }).replies.length, 1, 'the comment and its reply stay');

  // The check comes after the object is found and the caller may delete it: what is gone is 404,
  // someone else's comment 403, as without the parameter (a 409 would tell a version).
  assertError(await owner('DELETE', `/markers/${marker.id}?ifLatestVersion=1`), 404, 'not_found');
  assertError(await owner('DELETE', `/drawings/${drawing.id}?ifLatestVersion=1`), 404, 'not_found');
  assert.equal((await as(s.users.viewer.token, 'DELETE', `/comments/${asked.id}?ifLatestVersion=1`)).statusCode, 403);

  // Without it, a delete is as before; a value that is no version is 400.
  const { marker: other } = assertOk(await owner('POST', '/markers', { latitude: 5, longitude: 6 }), 201);
  assertValidation(await owner('DELETE', `/markers/${other.id}?ifLatestVersion=0`), 'ifLatestVersion');
  assertOk(await owner('DELETE', `/markers/${other.id}`));
});
