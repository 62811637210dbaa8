/**
 * Comments and replies over HTTP: list and its filters, create and reply with every
 * validation rule, resolve and reopen, the deletion rule (tokens and viewers delete only
 * what they wrote), access, history, counts and clear.
 * Contract: http-interface.md (Comment and reply, Comments, States, Errors) and decisions.md.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  buildTestApp,
  call,
  createRoom,
  createRoomWithMembers,
  issueToken,
  labelled,
  roomCounts,
  roomHistory,
  signupAll,
  type TestApp,
  type TestUser,
} from './helpers.js';

const READ_ONLY = "API token lacks 'write' permission";
const WRITE_ONLY = "API token lacks 'read' permission";
const WRONG_ROOM = 'API token is not scoped to this room';
const COMMENT_KEYS = [
  'author', 'body', 'createdAt', 'id', 'lat', 'lng', 'objectId', 'objectName', 'objectType', 'replies', 'resolved', 'updatedAt',
].sort();
const REPLY_KEYS = ['author', 'body', 'commentId', 'createdAt', 'id'].sort();

let t: TestApp;
let users: { owner: TestUser; editor: TestUser; viewer: TestUser; stranger: TestUser };

before(async () => {
  t = await buildTestApp();
  users = await signupAll(t.app, 'owner', 'editor', 'viewer', 'stranger');
});

after(async () => {
  if (t) await t.close();
});

const newRoom = (body: object = {}) => createRoomWithMembers(t.app, users, body);
const commentsUrl = (roomId: string) => `/api/rooms/${roomId}/comments`;
const commentUrl = (roomId: string, commentId: string) => `/api/rooms/${roomId}/comments/${commentId}`;
const repliesUrl = (roomId: string, commentId: string) => `/api/rooms/${roomId}/comments/${commentId}/replies`;
const replyUrl = (roomId: string, commentId: string, replyId: string) => `/api/rooms/${roomId}/comments/${commentId}/replies/${replyId}`;

const postComment = (roomId: string, body: unknown, auth?: string) => call(t.app, 'POST', commentsUrl(roomId), { auth, body });
const postReply = (roomId: string, commentId: string, body: unknown, auth?: string) =>
  call(t.app, 'POST', repliesUrl(roomId, commentId), { auth, body });
const patchComment = (roomId: string, commentId: string, body: unknown, auth?: string) =>
  call(t.app, 'PATCH', commentUrl(roomId, commentId), { auth, body });
const deleteComment = (roomId: string, commentId: string, auth?: string) => call(t.app, 'DELETE', commentUrl(roomId, commentId), { auth });
const deleteReply = (roomId: string, commentId: string, replyId: string, auth?: string) =>
  call(t.app, 'DELETE', replyUrl(roomId, commentId, replyId), { auth });

type Comment = Record<string, any> & { id: string; replies: Reply[] };
type Reply = Record<string, any> & { id: string };

async function createComment(roomId: string, auth: string, body: Record<string, unknown> = {}): Promise<Comment> {
  const json = assertOk(await postComment(roomId, { objectId: 'marker-abc', objectType: 'marker', body: 'A comment', ...body }, auth), 201);
  assert.equal(json.success, true);
  return json.comment;
}

async function createReply(roomId: string, commentId: string, auth: string, body = 'A reply'): Promise<Reply> {
  const json = assertOk(await postReply(roomId, commentId, { body }, auth), 201);
  assert.equal(json.success, true);
  return json.reply;
}

async function list(roomId: string, query = '', auth = users.owner.token): Promise<Comment[]> {
  const body = assertOk(await call(t.app, 'GET', `${commentsUrl(roomId)}${query ? `?${query}` : ''}`, { auth }));
  assert.deepEqual(Object.keys(body), ['comments']);
  return body.comments;
}

const ids = (items: { id: string }[]) => items.map((i) => i.id).sort();
const find = async (roomId: string, commentId: string) => (await list(roomId)).find((c) => c.id === commentId);

const history = (roomId: string) => roomHistory(t.app, roomId, users.owner.token);

const counts = (roomId: string) => roomCounts(t.app, roomId, users.owner.token);

describe('POST /api/rooms/:roomId/comments', () => {
  test('201 with the whole comment; the list shows the same comment', async () => {
    const roomId = await newRoom();
    const res = await postComment(
      roomId,
      { objectId: 'marker-1', objectType: 'marker', body: 'Is this the right bridge?', objectName: 'Bridge', lat: 46.95, lng: 7.45 },
      users.owner.token,
    );
    const json = assertOk(res, 201);
    assert.deepEqual(Object.keys(json).sort(), ['comment', 'success']);
    assert.equal(json.success, true);
    const comment = json.comment as Comment;
    assert.deepEqual(Object.keys(comment).sort(), COMMENT_KEYS);
    assert.match(comment.id, /^comment-.+/);
    assert.equal(comment.objectId, 'marker-1');
    assert.equal(comment.objectType, 'marker');
    assert.equal(comment.objectName, 'Bridge');
    assert.equal(comment.body, 'Is this the right bridge?');
    assert.equal(comment.lat, 46.95);
    assert.equal(comment.lng, 7.45);
    assert.equal(comment.resolved, false);
    assert.deepEqual(comment.author, { kind: 'user', id: users.owner.id });
    assert.ok(Number.isInteger(comment.createdAt) && comment.createdAt > 0);
    assert.ok(Number.isInteger(comment.updatedAt) && comment.updatedAt >= comment.createdAt);
    assert.deepEqual(comment.replies, []);
    assert.deepEqual(await list(roomId), [comment]);
  });

  test('optional fields absent are null; every objectType is accepted; bodies keep their text', async () => {
    const roomId = await newRoom();
    const layer = await createComment(roomId, users.editor.token, { objectId: 'layer-1', objectType: 'layer', body: '  spaced  ' });
    assert.equal(layer.objectType, 'layer');
    assert.equal(layer.objectName, null);
    assert.equal(layer.lat, null);
    assert.equal(layer.lng, null);
    assert.equal(layer.body, '  spaced  ');
    assert.deepEqual(layer.author, { kind: 'user', id: users.editor.id });
    const drawing = await createComment(roomId, users.viewer.token, { objectId: 'drawing-1', objectType: 'drawing', body: 'ünïcödé ✓\nline two' });
    assert.equal(drawing.objectType, 'drawing');
    assert.equal(drawing.body, 'ünïcödé ✓\nline two');
    assert.deepEqual(drawing.author, { kind: 'user', id: users.viewer.id });
    assert.deepEqual(ids(await list(roomId)), ids([layer, drawing]));
  });

  test('a write token comments as itself', async () => {
    const roomId = await newRoom();
    const token = await issueToken(t.app, users.owner, roomId, ['write']);
    const comment = await createComment(roomId, token.token);
    assert.deepEqual(comment.author, { kind: 'token', id: token.id });
  });

  test('boundaries are accepted: body of 5000, objectName of 500, lat/lng at the extremes', async () => {
    const roomId = await newRoom();
    const long = await createComment(roomId, users.owner.token, { body: 'x'.repeat(5000), objectName: 'n'.repeat(500) });
    assert.equal(long.body.length, 5000);
    assert.equal(long.objectName.length, 500);
    const corner = await createComment(roomId, users.owner.token, { lat: -90, lng: 180 });
    assert.equal(corner.lat, -90);
    assert.equal(corner.lng, 180);
    const other = await createComment(roomId, users.owner.token, { lat: 90, lng: -180, objectName: '' });
    assert.equal(other.lat, 90);
    assert.equal(other.lng, -180);
    assert.equal((await list(roomId)).length, 3);
  });

  test('every validation rule answers 400 validation_error naming the field, and stores nothing', async () => {
    const roomId = await newRoom();
    const valid = { objectId: 'marker-1', objectType: 'marker', body: 'ok' };
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['objectType room', { ...valid, objectType: 'room' }, ['body.objectType']],
      ['objectType Marker', { ...valid, objectType: 'Marker' }, ['body.objectType']],
      ['objectType missing', { objectId: 'x', body: 'ok' }, ['body.objectType']],
      ['objectId missing', { objectType: 'marker', body: 'ok' }, ['body.objectId']],
      ['body missing', { objectId: 'x', objectType: 'marker' }, ['body.body']],
      ['body empty', { ...valid, body: '' }, ['body.body']],
      ['body whitespace', { ...valid, body: ' \n\t  ' }, ['body.body']],
      ['body 5001', { ...valid, body: 'x'.repeat(5001) }, ['body.body']],
      ['body not a string', { ...valid, body: 42 }, ['body.body']],
      ['objectName 501', { ...valid, objectName: 'n'.repeat(501) }, ['body.objectName']],
      ['lat 91', { ...valid, lat: 91, lng: 0 }, ['body.lat']],
      ['lat -91', { ...valid, lat: -91, lng: 0 }, ['body.lat']],
      ['lng 181', { ...valid, lat: 0, lng: 181 }, ['body.lng']],
      ['lng -180.5', { ...valid, lat: 0, lng: -180.5 }, ['body.lng']],
      ['lat as string', { ...valid, lat: '45', lng: 7 }, ['body.lat']],
      ['lng null', { ...valid, lat: 45, lng: null }, ['body.lng']],
      ['only lat', { ...valid, lat: 45 }, ['body.lat', 'body.lng']],
      ['only lng', { ...valid, lng: 7 }, ['body.lat', 'body.lng']],
      ['unknown field', { ...valid, color: '#fff' }, ['body.color']],
      ['read-only field', { ...valid, resolved: true }, ['body.resolved']],
    ];
    for (const [name, body, fields] of cases) {
      const res = await postComment(roomId, body, users.owner.token);
      labelled(name, () => assertFieldError(res, ...fields));
    }
    assert.deepEqual(await list(roomId), []);
    assert.equal((await counts(roomId)).comments, 0);
  });
});

describe('GET /api/rooms/:roomId/comments', () => {
  let roomId: string;
  let c: Record<'m1' | 'm2' | 'layer' | 'drawing' | 'm1b' | 'sharedMarker' | 'sharedLayer', Comment>;
  let replies: Reply[];

  before(async () => {
    roomId = await newRoom();
    const make = (objectId: string, objectType: string, body: string) => createComment(roomId, users.owner.token, { objectId, objectType, body });
    c = {
      m1: await make('marker-1', 'marker', 'first on marker 1'),
      m2: await make('marker-2', 'marker', 'on marker 2'),
      layer: await make('layer-1', 'layer', 'on the layer'),
      drawing: await make('drawing-1', 'drawing', 'on the drawing'),
      m1b: await make('marker-1', 'marker', 'second on marker 1'),
      sharedMarker: await make('shared-id', 'marker', 'shared id, marker'),
      sharedLayer: await make('shared-id', 'layer', 'shared id, layer'),
    };
    for (const key of ['m2', 'drawing', 'm1b', 'sharedLayer'] as const) {
      assert.equal(assertOk(await patchComment(roomId, c[key].id, { resolved: true }, users.owner.token)).comment.resolved, true);
    }
    replies = [await createReply(roomId, c.m1.id, users.editor.token, 'reply one'), await createReply(roomId, c.m1.id, users.viewer.token, 'reply two')];
  });

  test('lists every comment with its body and its replies embedded', async () => {
    const all = await list(roomId);
    assert.deepEqual(ids(all), ids(Object.values(c)));
    for (const comment of all) {
      const created = Object.values(c).find((x) => x.id === comment.id)!;
      assert.deepEqual(Object.keys(comment).sort(), COMMENT_KEYS);
      assert.equal(comment.body, created.body);
      assert.equal(comment.objectId, created.objectId);
      assert.equal(comment.objectType, created.objectType);
    }
    const withReplies = all.find((x) => x.id === c.m1.id)!;
    assert.deepEqual(ids(withReplies.replies), ids(replies));
    for (const reply of withReplies.replies) {
      assert.deepEqual(Object.keys(reply).sort(), REPLY_KEYS);
      assert.deepEqual(reply, replies.find((r) => r.id === reply.id));
    }
    for (const comment of all.filter((x) => x.id !== c.m1.id)) assert.deepEqual(comment.replies, []);
  });

  test('filters by objectId, objectType and resolved, alone and combined', async () => {
    const expect = async (query: string, keys: (keyof typeof c)[]) =>
      assert.deepEqual(ids(await list(roomId, query)), ids(keys.map((k) => c[k])), query);
    await expect('objectId=marker-1', ['m1', 'm1b']);
    await expect('objectId=shared-id', ['sharedMarker', 'sharedLayer']);
    await expect('objectId=nothing-here', []);
    await expect('objectType=marker', ['m1', 'm2', 'm1b', 'sharedMarker']);
    await expect('objectType=layer', ['layer', 'sharedLayer']);
    await expect('objectType=drawing', ['drawing']);
    await expect('resolved=true', ['m2', 'drawing', 'm1b', 'sharedLayer']);
    await expect('resolved=false', ['m1', 'layer', 'sharedMarker']);
    await expect('objectType=marker&resolved=false', ['m1', 'sharedMarker']);
    await expect('objectType=marker&resolved=true', ['m2', 'm1b']);
    await expect('objectId=marker-1&resolved=true', ['m1b']);
    await expect('objectId=shared-id&objectType=layer', ['sharedLayer']);
    await expect('objectId=shared-id&objectType=layer&resolved=false', []);
    await expect('objectId=marker-1&objectType=drawing', []);
    // The filtered items still carry their replies.
    const [m1] = await list(roomId, 'objectId=marker-1&resolved=false');
    assert.deepEqual(ids(m1!.replies), ids(replies));
  });

  test('a bad objectType or resolved filter is 400', async () => {
    for (const query of ['objectType=room', 'objectType=Marker', 'resolved=maybe', 'resolved=yes', 'objectType=marker&resolved=2']) {
      const res = await call(t.app, 'GET', `${commentsUrl(roomId)}?${query}`, { auth: users.owner.token });
      assertFieldError(res, `querystring.${query.includes('resolved') ? 'resolved' : 'objectType'}`);
    }
  });

  test('another room lists none of these comments', async () => {
    const other = await newRoom();
    await createComment(other, users.owner.token, { objectId: 'marker-1' });
    const theirs = await list(other, 'objectId=marker-1');
    assert.equal(theirs.length, 1);
    assert.ok(!ids(Object.values(c)).includes(theirs[0]!.id));
  });
});

describe('POST /api/rooms/:roomId/comments/:commentId/replies', () => {
  test('201 with the reply; the comment lists it', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, users.owner.token);
    const json = assertOk(await postReply(roomId, comment.id, { body: 'Yes, it is.' }, users.viewer.token), 201);
    assert.deepEqual(Object.keys(json).sort(), ['reply', 'success']);
    assert.equal(json.success, true);
    const reply = json.reply as Reply;
    assert.deepEqual(Object.keys(reply).sort(), REPLY_KEYS);
    assert.match(reply.id, /^reply-.+/);
    assert.equal(reply.commentId, comment.id);
    assert.equal(reply.body, 'Yes, it is.');
    assert.deepEqual(reply.author, { kind: 'user', id: users.viewer.id });
    assert.ok(Number.isInteger(reply.createdAt) && reply.createdAt > 0);
    assert.deepEqual((await find(roomId, comment.id))!.replies, [reply]);

    const token = await issueToken(t.app, users.owner, roomId, ['write']);
    const byToken = await createReply(roomId, comment.id, token.token, 'from a script');
    assert.deepEqual(byToken.author, { kind: 'token', id: token.id });
    assert.deepEqual(ids((await find(roomId, comment.id))!.replies), ids([reply, byToken]));
  });

  test("a comment of another room, addressed through this room's path, or an unknown comment is 404", async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const theirs = await createComment(other, users.owner.token);
    assertError(await postReply(roomId, theirs.id, { body: 'sneaky' }, users.owner.token), 404, 'not_found');
    assertError(await postReply(roomId, 'comment-doesnotexist', { body: 'hello?' }, users.owner.token), 404, 'not_found');
    assert.deepEqual((await find(other, theirs.id))!.replies, []);
    assert.deepEqual(await history(roomId), []);
  });

  test('the body rules apply to replies', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, users.owner.token);
    const cases: [string, unknown, string][] = [
      ['missing', {}, 'body.body'],
      ['empty', { body: '' }, 'body.body'],
      ['whitespace', { body: '   \n ' }, 'body.body'],
      ['5001', { body: 'y'.repeat(5001) }, 'body.body'],
      ['number', { body: 5 }, 'body.body'],
      ['unknown field', { body: 'ok', author: 'me' }, 'body.author'],
    ];
    for (const [name, body, field] of cases) {
      const res = await postReply(roomId, comment.id, body, users.owner.token);
      labelled(name, () => assertFieldError(res, field));
    }
    assert.deepEqual((await find(roomId, comment.id))!.replies, []);
    const max = await createReply(roomId, comment.id, users.owner.token, 'y'.repeat(5000));
    assert.equal(max.body.length, 5000);
  });
});

describe('PATCH /api/rooms/:roomId/comments/:commentId (resolve)', () => {
  test('resolves and reopens; the answer carries the comment and the list filters follow', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, users.viewer.token);
    const reply = await createReply(roomId, comment.id, users.viewer.token);
    const token = await issueToken(t.app, users.owner, roomId, ['write']);

    const resolved = assertOk(await patchComment(roomId, comment.id, { resolved: true }, users.owner.token));
    assert.deepEqual(Object.keys(resolved).sort(), ['comment', 'success']);
    assert.equal(resolved.success, true);
    assert.deepEqual(Object.keys(resolved.comment).sort(), COMMENT_KEYS);
    assert.equal(resolved.comment.id, comment.id);
    assert.equal(resolved.comment.resolved, true);
    assert.equal(resolved.comment.body, comment.body);
    assert.deepEqual(resolved.comment.author, comment.author);
    assert.equal(resolved.comment.createdAt, comment.createdAt);
    assert.deepEqual(resolved.comment.replies, [reply]);
    assert.deepEqual(ids(await list(roomId, 'resolved=true')), [comment.id]);
    assert.deepEqual(await list(roomId, 'resolved=false'), []);
    assert.deepEqual(await find(roomId, comment.id), resolved.comment);

    const reopened = assertOk(await patchComment(roomId, comment.id, { resolved: false }, users.editor.token));
    assert.equal(reopened.comment.resolved, false);
    assert.deepEqual(await list(roomId, 'resolved=true'), []);
    assert.deepEqual(ids(await list(roomId, 'resolved=false')), [comment.id]);

    assert.equal(assertOk(await patchComment(roomId, comment.id, { resolved: true }, token.token)).comment.resolved, true);
    assert.deepEqual(ids(await list(roomId, 'resolved=true')), [comment.id]);
    // Resolving twice is harmless.
    assert.equal(assertOk(await patchComment(roomId, comment.id, { resolved: true }, users.owner.token)).comment.resolved, true);
  });

  test('needs write: viewer 403 forbidden, read token 403, stranger 403, anonymous 401; nothing changes', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, users.viewer.token);
    const readToken = await issueToken(t.app, users.owner, roomId, ['read']);
    assertError(await patchComment(roomId, comment.id, { resolved: true }, users.viewer.token), 403, 'forbidden');
    assertError(await patchComment(roomId, comment.id, { resolved: true }, readToken.token), 403, 'forbidden', READ_ONLY);
    assertError(await patchComment(roomId, comment.id, { resolved: true }, users.stranger.token), 403, 'forbidden');
    assertError(await patchComment(roomId, comment.id, { resolved: true }), 401, 'unauthorized');
    assert.equal((await find(roomId, comment.id))!.resolved, false);
  });

  test('a missing or non-boolean resolved is 400; unknown or foreign comments are 404', async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const comment = await createComment(roomId, users.owner.token);
    const theirs = await createComment(other, users.owner.token);
    for (const body of [{}, { resolved: 'true' }, { resolved: 1 }, { resolved: null }, { resolved: true, body: 'edit' }]) {
      assertFieldError(await patchComment(roomId, comment.id, body, users.owner.token), 'body.resolved', 'body.body');
    }
    assertError(await patchComment(roomId, 'comment-unknown', { resolved: true }, users.owner.token), 404, 'not_found');
    assertError(await patchComment(roomId, theirs.id, { resolved: true }, users.owner.token), 404, 'not_found');
    assert.equal((await find(roomId, comment.id))!.resolved, false);
    assert.equal((await find(other, theirs.id))!.resolved, false);
  });
});

describe('deleting comments and replies', () => {
  test('a room token deletes only the comments and replies it wrote', async () => {
    const roomId = await newRoom();
    const a = await issueToken(t.app, users.owner, roomId, ['read', 'write']);
    const b = await issueToken(t.app, users.owner, roomId, ['write']);
    const ofA = await createComment(roomId, a.token, { body: 'by A' });
    const ofB = await createComment(roomId, b.token, { body: 'by B' });
    const ofOwner = await createComment(roomId, users.owner.token, { body: 'by owner' });
    const replyOfA = await createReply(roomId, ofB.id, a.token);
    const replyOfB = await createReply(roomId, ofB.id, b.token);
    const replyOfOwner = await createReply(roomId, ofA.id, users.owner.token);

    assertError(await deleteComment(roomId, ofB.id, a.token), 403, 'forbidden');
    assertError(await deleteComment(roomId, ofOwner.id, a.token), 403, 'forbidden');
    assertError(await deleteReply(roomId, ofB.id, replyOfB.id, a.token), 403, 'forbidden');
    assertError(await deleteReply(roomId, ofA.id, replyOfOwner.id, a.token), 403, 'forbidden');
    assert.deepEqual(ids(await list(roomId)), ids([ofA, ofB, ofOwner]));
    assert.equal((await find(roomId, ofB.id))!.replies.length, 2);
    assert.equal((await find(roomId, ofA.id))!.replies.length, 1);

    assert.deepEqual(assertOk(await deleteReply(roomId, ofB.id, replyOfA.id, a.token)), { success: true, replyId: replyOfA.id });
    assert.deepEqual(ids((await find(roomId, ofB.id))!.replies), [replyOfB.id]);
    assert.deepEqual(assertOk(await deleteComment(roomId, ofA.id, a.token)), { success: true, commentId: ofA.id });
    assert.deepEqual(assertOk(await deleteComment(roomId, ofB.id, b.token)), { success: true, commentId: ofB.id });
    assert.deepEqual(ids(await list(roomId)), [ofOwner.id]);
  });

  test('viewers create, reply and delete their own, but not what others wrote', async () => {
    const roomId = await newRoom();
    const token = await issueToken(t.app, users.owner, roomId, ['write']);
    const mine = await createComment(roomId, users.viewer.token, { body: 'viewer comment' });
    const ownerComment = await createComment(roomId, users.owner.token);
    const tokenComment = await createComment(roomId, token.token);
    const myReply = await createReply(roomId, ownerComment.id, users.viewer.token);
    const editorReply = await createReply(roomId, mine.id, users.editor.token);

    assertError(await deleteComment(roomId, ownerComment.id, users.viewer.token), 403, 'forbidden');
    assertError(await deleteComment(roomId, tokenComment.id, users.viewer.token), 403, 'forbidden');
    assertError(await deleteReply(roomId, mine.id, editorReply.id, users.viewer.token), 403, 'forbidden');
    assert.deepEqual(ids((await find(roomId, mine.id))!.replies), [editorReply.id]);

    assert.deepEqual(assertOk(await deleteReply(roomId, ownerComment.id, myReply.id, users.viewer.token)), { success: true, replyId: myReply.id });
    assert.deepEqual((await find(roomId, ownerComment.id))!.replies, []);
    assert.deepEqual(assertOk(await deleteComment(roomId, mine.id, users.viewer.token)), { success: true, commentId: mine.id });
    assert.deepEqual(ids(await list(roomId)), ids([ownerComment, tokenComment]));
  });

  test('owner and editor sessions delete any comment or reply', async () => {
    const roomId = await newRoom();
    const token = await issueToken(t.app, users.owner, roomId, ['write']);
    const byViewer = await createComment(roomId, users.viewer.token);
    const byToken = await createComment(roomId, token.token);
    const byOwner = await createComment(roomId, users.owner.token);
    const byEditor = await createComment(roomId, users.editor.token);
    const tokenReply = await createReply(roomId, byEditor.id, token.token);
    const viewerReply = await createReply(roomId, byEditor.id, users.viewer.token);

    assertOk(await deleteComment(roomId, byViewer.id, users.owner.token));
    assertOk(await deleteComment(roomId, byToken.id, users.editor.token));
    assertOk(await deleteComment(roomId, byOwner.id, users.editor.token));
    assert.deepEqual(assertOk(await deleteReply(roomId, byEditor.id, tokenReply.id, users.owner.token)), { success: true, replyId: tokenReply.id });
    assert.deepEqual(assertOk(await deleteReply(roomId, byEditor.id, viewerReply.id, users.editor.token)), { success: true, replyId: viewerReply.id });
    assertOk(await deleteComment(roomId, byEditor.id, users.owner.token));
    assert.deepEqual(await list(roomId), []);
  });

  test("deleting a comment removes its replies; deleting again is 404, and so are its replies", async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, users.owner.token);
    const keep = await createComment(roomId, users.owner.token, { body: 'keep me' });
    const r1 = await createReply(roomId, comment.id, users.editor.token);
    const r2 = await createReply(roomId, comment.id, users.viewer.token);
    const kept = await createReply(roomId, keep.id, users.viewer.token);
    assertOk(await deleteComment(roomId, comment.id, users.owner.token));
    assert.deepEqual(ids(await list(roomId)), [keep.id]);
    assert.deepEqual((await find(roomId, keep.id))!.replies, [kept]);

    assertError(await deleteComment(roomId, comment.id, users.owner.token), 404, 'not_found');
    assertError(await deleteReply(roomId, comment.id, r1.id, users.owner.token), 404, 'not_found');
    assertError(await deleteReply(roomId, comment.id, r2.id, users.viewer.token), 404, 'not_found');
    assertError(await postReply(roomId, comment.id, { body: 'too late' }, users.owner.token), 404, 'not_found');
    assertError(await patchComment(roomId, comment.id, { resolved: true }, users.owner.token), 404, 'not_found');

    assertOk(await deleteReply(roomId, keep.id, kept.id, users.viewer.token));
    assertError(await deleteReply(roomId, keep.id, kept.id, users.viewer.token), 404, 'not_found');
    assertError(await deleteReply(roomId, keep.id, kept.id, users.owner.token), 404, 'not_found');
  });

  test('ids of another room, or a reply addressed under the wrong comment, are 404 and delete nothing', async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const theirs = await createComment(other, users.owner.token);
    const theirReply = await createReply(other, theirs.id, users.owner.token);
    const mine = await createComment(roomId, users.owner.token);
    const mine2 = await createComment(roomId, users.owner.token);
    const myReply = await createReply(roomId, mine.id, users.owner.token);

    assertError(await deleteComment(roomId, theirs.id, users.owner.token), 404, 'not_found');
    assertError(await deleteReply(roomId, theirs.id, theirReply.id, users.owner.token), 404, 'not_found');
    assertError(await deleteReply(roomId, mine.id, theirReply.id, users.owner.token), 404, 'not_found');
    assertError(await deleteReply(roomId, mine2.id, myReply.id, users.owner.token), 404, 'not_found');
    assertError(await deleteComment(roomId, 'comment-unknown', users.owner.token), 404, 'not_found');
    assert.deepEqual((await find(other, theirs.id))!.replies, [theirReply]);
    assert.deepEqual((await find(roomId, mine.id))!.replies, [myReply]);
  });

  test("a read-only token cannot create, reply or delete: 403 \"API token lacks 'write' permission\"", async () => {
    const roomId = await newRoom();
    const readToken = await issueToken(t.app, users.owner, roomId, ['read']);
    const comment = await createComment(roomId, users.owner.token);
    const reply = await createReply(roomId, comment.id, users.owner.token);
    assertError(await postComment(roomId, { objectId: 'x', objectType: 'marker', body: 'hi' }, readToken.token), 403, 'forbidden', READ_ONLY);
    assertError(await postReply(roomId, comment.id, { body: 'hi' }, readToken.token), 403, 'forbidden', READ_ONLY);
    assertError(await deleteReply(roomId, comment.id, reply.id, readToken.token), 403, 'forbidden', READ_ONLY);
    assertError(await deleteComment(roomId, comment.id, readToken.token), 403, 'forbidden', READ_ONLY);
    // It may read them.
    assert.deepEqual(await list(roomId, '', readToken.token), await list(roomId));
    assert.deepEqual(ids(await list(roomId)), [comment.id]);
    assert.deepEqual((await find(roomId, comment.id))!.replies, [reply]);
  });

  test('a write-only token may comment but not list; a token of another room is refused', async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const writeOnly = await issueToken(t.app, users.owner, roomId, ['write']);
    const foreign = await issueToken(t.app, users.owner, other, ['read', 'write']);
    await createComment(roomId, writeOnly.token);
    assertError(await call(t.app, 'GET', commentsUrl(roomId), { auth: writeOnly.token }), 403, 'forbidden', WRITE_ONLY);
    assertError(await call(t.app, 'GET', commentsUrl(roomId), { auth: foreign.token }), 403, 'forbidden', WRONG_ROOM);
    assertError(await postComment(roomId, { objectId: 'x', objectType: 'marker', body: 'hi' }, foreign.token), 403, 'forbidden', WRONG_ROOM);
    assert.equal((await list(roomId)).length, 1);
  });

  test('anonymous callers list a public room but cannot create, reply, resolve or delete (401)', async () => {
    const roomId = await newRoom({ isPublic: true });
    const comment = await createComment(roomId, users.owner.token);
    const reply = await createReply(roomId, comment.id, users.owner.token);
    const anonymous = assertOk(await call(t.app, 'GET', commentsUrl(roomId)));
    assert.deepEqual(anonymous, { comments: await list(roomId) });
    assert.deepEqual(anonymous.comments[0].replies, [reply]);
    assertError(await postComment(roomId, { objectId: 'x', objectType: 'marker', body: 'hi' }), 401, 'unauthorized');
    assertError(await postReply(roomId, comment.id, { body: 'hi' }), 401, 'unauthorized');
    assertError(await patchComment(roomId, comment.id, { resolved: true }), 401, 'unauthorized');
    assertError(await deleteReply(roomId, comment.id, reply.id), 401, 'unauthorized');
    assertError(await deleteComment(roomId, comment.id), 401, 'unauthorized');
    // A signed-in non-member of a public room reads but does not comment.
    assert.equal((await list(roomId, '', users.stranger.token)).length, 1);
    assertError(await postComment(roomId, { objectId: 'x', objectType: 'marker', body: 'hi' }, users.stranger.token), 403, 'forbidden');
    assert.deepEqual(ids(await list(roomId)), [comment.id]);
  });

  test('a non-member of a private room gets 403, an anonymous caller 401', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, users.owner.token);
    const reply = await createReply(roomId, comment.id, users.owner.token);
    const s = users.stranger.token;
    assertError(await call(t.app, 'GET', commentsUrl(roomId), { auth: s }), 403, 'forbidden');
    assertError(await postComment(roomId, { objectId: 'x', objectType: 'marker', body: 'hi' }, s), 403, 'forbidden');
    assertError(await postReply(roomId, comment.id, { body: 'hi' }, s), 403, 'forbidden');
    assertError(await deleteReply(roomId, comment.id, reply.id, s), 403, 'forbidden');
    assertError(await deleteComment(roomId, comment.id, s), 403, 'forbidden');
    assertError(await call(t.app, 'GET', commentsUrl(roomId)), 401, 'unauthorized');
    assertError(await postComment(roomId, { objectId: 'x', objectType: 'marker', body: 'hi' }), 401, 'unauthorized');
    assert.deepEqual((await find(roomId, comment.id))!.replies, [reply]);
  });
});

describe('history, counts and clear', () => {
  test('each change writes one history entry with its actor (user or token)', async () => {
    const roomId = await newRoom();
    const token = await issueToken(t.app, users.owner, roomId, ['write']);
    const comment = await createComment(roomId, users.viewer.token, { objectId: 'marker-9', objectType: 'marker', body: 'look', lat: 1, lng: 2 });
    const reply = await createReply(roomId, comment.id, token.token, 'seen');
    assertOk(await patchComment(roomId, comment.id, { resolved: true }, users.editor.token));
    assertOk(await deleteReply(roomId, comment.id, reply.id, token.token));
    const second = await createComment(roomId, token.token);
    assertOk(await deleteComment(roomId, second.id, token.token));
    assertOk(await deleteComment(roomId, comment.id, users.owner.token));

    const events = (await history(roomId)).reverse();
    const summary = events.map((e) => [e.type, e.objectType, e.objectId, e.actor.kind, e.actor.id]);
    assert.deepEqual(summary, [
      ['comment.created', 'comment', comment.id, 'user', users.viewer.id],
      ['reply.created', 'reply', reply.id, 'token', token.id],
      ['comment.updated', 'comment', comment.id, 'user', users.editor.id],
      ['reply.deleted', 'reply', reply.id, 'token', token.id],
      ['comment.created', 'comment', second.id, 'token', token.id],
      ['comment.deleted', 'comment', second.id, 'token', token.id],
      ['comment.deleted', 'comment', comment.id, 'user', users.owner.id],
    ]);
    assert.deepEqual(events[0]!.changes, { objectId: 'marker-9', objectType: 'marker', body: 'look', lat: 1, lng: 2 });
    assert.deepEqual(events[2]!.changes, { resolved: true });
    // Versions advance by one per change.
    for (let i = 1; i < events.length; i++) assert.equal(events[i]!.version, events[i - 1]!.version + 1);
  });

  test('refused changes (400, 403, 404) write no history', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, users.owner.token);
    const before = await history(roomId);
    await postComment(roomId, { objectId: 'x', objectType: 'room', body: 'hi' }, users.owner.token);
    await postReply(roomId, comment.id, { body: ' ' }, users.owner.token);
    await postReply(roomId, 'comment-unknown', { body: 'hi' }, users.owner.token);
    await patchComment(roomId, comment.id, { resolved: true }, users.viewer.token);
    await deleteComment(roomId, comment.id, users.viewer.token);
    await deleteComment(roomId, 'comment-unknown', users.owner.token);
    assert.deepEqual(await history(roomId), before);
  });

  test('counts.comments follows creates and deletes and does not count replies', async () => {
    const roomId = await newRoom();
    assert.equal((await counts(roomId)).comments, 0);
    const a = await createComment(roomId, users.owner.token);
    const b = await createComment(roomId, users.viewer.token);
    assert.equal((await counts(roomId)).comments, 2);
    await createReply(roomId, a.id, users.editor.token);
    await createReply(roomId, a.id, users.editor.token);
    assert.equal((await counts(roomId)).comments, 2);
    assertOk(await deleteComment(roomId, a.id, users.owner.token));
    assert.equal((await counts(roomId)).comments, 1);
    assertOk(await deleteComment(roomId, b.id, users.viewer.token));
    assert.equal((await counts(roomId)).comments, 0);
  });

  test('clear removes every comment and reply (removed.comments = n); other rooms keep theirs', async () => {
    const roomId = await newRoom();
    const other = await createRoom(t.app, users.owner);
    const survivor = await createComment(other, users.owner.token);
    const comments = [
      await createComment(roomId, users.owner.token),
      await createComment(roomId, users.viewer.token),
      await createComment(roomId, users.editor.token, { objectType: 'layer', objectId: 'layer-1' }),
    ];
    await createReply(roomId, comments[0]!.id, users.viewer.token);
    await createReply(roomId, comments[0]!.id, users.editor.token);
    const body = assertOk(await call(t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: users.owner.token }));
    assert.equal(body.success, true);
    assert.equal(body.removed.comments, 3);
    assert.deepEqual(await list(roomId), []);
    assert.equal((await counts(roomId)).comments, 0);
    assertError(await postReply(roomId, comments[0]!.id, { body: 'gone?' }, users.owner.token), 404, 'not_found');
    assert.deepEqual(ids(await list(other)), [survivor.id]);
    const [latest] = await history(roomId);
    assert.equal(latest!.type, 'room.cleared');
    assert.equal(latest!.changes!.comments, 3);
    // The room takes new comments afterwards.
    await createComment(roomId, users.owner.token);
    assert.equal((await counts(roomId)).comments, 1);
  });
});
