/**
 * Comments and replies over HTTP: list and its filters, create and reply with every
 * validation rule, resolve and reopen.
 * Contract: docs/http-interface.md (Comment and reply, Comments, States, Errors) and docs/contract-decisions.md.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  issueToken,
  labelled,
  scaffoldSuite,
  TOKEN_ERRORS,
} from '../helpers.js';
import {
  type Comment,
  COMMENT_KEYS,
  commentCalls,
  commentsUrl,
  ids,
  type Reply,
  REPLY_KEYS,
} from '../support/comments.js';
import { createInlineLayer } from '../support/layers.js';

const s = scaffoldSuite({ rooms: [] });
const { newRoom, postComment, postReply, patchComment, createComment, createReply, list, find, history, counts } =
  commentCalls(() => s);

describe('POST /api/rooms/:roomId/comments', () => {
  test('201 with the whole comment; the list shows the same comment', async () => {
    const roomId = await newRoom();
    const res = await postComment(
      roomId,
      {
        objectId: 'marker-1',
        objectType: 'marker',
        body: 'Is this the right bridge?',
        objectName: 'Bridge',
        lat: 46.95,
        lng: 7.45,
      },
      s.users.owner.token,
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
    // Comments are what history keeps and the live channel sends every reader: a user without a name has none.
    assert.deepEqual(comment.author, { kind: 'user', id: s.users.owner.id });
    assert.ok(Number.isInteger(comment.createdAt) && comment.createdAt > 0);
    assert.ok(Number.isInteger(comment.updatedAt) && comment.updatedAt >= comment.createdAt);
    assert.deepEqual(comment.replies, []);
    assert.deepEqual(await list(roomId), [comment]);
  });

  test('optional fields absent are null; every objectType is accepted; bodies keep their text', async () => {
    const roomId = await newRoom();
    const { id: layerId } = await createInlineLayer(s.t.app, roomId, s.users.owner.token);
    const layer = await createComment(roomId, s.users.editor.token, {
      objectId: layerId,
      objectType: 'layer',
      body: '  spaced  ',
    });
    assert.equal(layer.objectType, 'layer');
    assert.equal(layer.objectName, null);
    assert.equal(layer.lat, null);
    assert.equal(layer.lng, null);
    assert.equal(layer.body, '  spaced  ');
    assert.deepEqual(layer.author, { kind: 'user', id: s.users.editor.id });
    const drawing = await createComment(roomId, s.users.viewer.token, {
      objectId: 'drawing-1',
      objectType: 'drawing',
      body: 'ünïcödé ✓\nline two',
    });
    assert.equal(drawing.objectType, 'drawing');
    assert.equal(drawing.body, 'ünïcödé ✓\nline two');
    assert.deepEqual(drawing.author, { kind: 'user', id: s.users.viewer.id });
    assert.deepEqual(ids(await list(roomId)), ids([layer, drawing]));
  });

  test('a write token comments as itself, and (without read) hears back only the id and what it sent', async () => {
    const roomId = await newRoom();
    const token = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    const comment = await createComment(roomId, token.token);
    assert.deepEqual(Object.keys(comment).sort(), ['body', 'id', 'objectId', 'objectType']);
    const stored = (await list(roomId)).find((c) => c.id === comment.id);
    assert.deepEqual(stored?.author, { kind: 'token', id: token.id, name: 'token write' });
  });

  test('boundaries are accepted: body of 5000, objectName of 500, lat/lng at the extremes', async () => {
    const roomId = await newRoom();
    const long = await createComment(roomId, s.users.owner.token, {
      body: 'x'.repeat(5000),
      objectName: 'n'.repeat(500),
    });
    assert.equal(long.body.length, 5000);
    assert.equal(long.objectName.length, 500);
    const corner = await createComment(roomId, s.users.owner.token, { lat: -90, lng: 180 });
    assert.equal(corner.lat, -90);
    assert.equal(corner.lng, 180);
    const other = await createComment(roomId, s.users.owner.token, { lat: 90, lng: -180, objectName: '' });
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
      [
        'a layer the room does not hold',
        { ...valid, objectType: 'layer', objectId: 'layer-absent000000000000' },
        ['body.objectId'],
      ],
    ];
    for (const [name, body, fields] of cases) {
      const res = await postComment(roomId, body, s.users.owner.token);
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

  let shared: string;

  before(async () => {
    roomId = await newRoom();
    const make = (objectId: string, objectType: string, body: string) =>
      createComment(roomId, s.users.owner.token, { objectId, objectType, body });
    // Comments on a layer must name one of the room's layers; marker ids are not looked up.
    const layerId = (await createInlineLayer(s.t.app, roomId, s.users.owner.token)).id;
    shared = (await createInlineLayer(s.t.app, roomId, s.users.owner.token)).id;
    c = {
      m1: await make('marker-1', 'marker', 'first on marker 1'),
      m2: await make('marker-2', 'marker', 'on marker 2'),
      layer: await make(layerId, 'layer', 'on the layer'),
      drawing: await make('drawing-1', 'drawing', 'on the drawing'),
      m1b: await make('marker-1', 'marker', 'second on marker 1'),
      sharedMarker: await make(shared, 'marker', 'shared id, marker'),
      sharedLayer: await make(shared, 'layer', 'shared id, layer'),
    };
    for (const key of ['m2', 'drawing', 'm1b', 'sharedLayer'] as const) {
      assert.equal(
        assertOk(await patchComment(roomId, c[key].id, { resolved: true }, s.users.owner.token)).comment.resolved,
        true,
      );
    }
    replies = [
      await createReply(roomId, c.m1.id, s.users.editor.token, 'reply one'),
      await createReply(roomId, c.m1.id, s.users.viewer.token, 'reply two'),
    ];
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
      assert.deepEqual(
        reply,
        replies.find((r) => r.id === reply.id),
      );
    }
    for (const comment of all.filter((x) => x.id !== c.m1.id)) assert.deepEqual(comment.replies, []);
  });

  test('filters by objectId, objectType and resolved, alone and combined', async () => {
    const expect = async (query: string, keys: (keyof typeof c)[]) =>
      assert.deepEqual(ids(await list(roomId, query)), ids(keys.map((k) => c[k])), query);
    await expect('objectId=marker-1', ['m1', 'm1b']);
    await expect(`objectId=${shared}`, ['sharedMarker', 'sharedLayer']);
    await expect('objectId=nothing-here', []);
    await expect('objectType=marker', ['m1', 'm2', 'm1b', 'sharedMarker']);
    await expect('objectType=layer', ['layer', 'sharedLayer']);
    await expect('objectType=drawing', ['drawing']);
    await expect('resolved=true', ['m2', 'drawing', 'm1b', 'sharedLayer']);
    await expect('resolved=false', ['m1', 'layer', 'sharedMarker']);
    await expect('objectType=marker&resolved=false', ['m1', 'sharedMarker']);
    await expect('objectType=marker&resolved=true', ['m2', 'm1b']);
    await expect('objectId=marker-1&resolved=true', ['m1b']);
    await expect(`objectId=${shared}&objectType=layer`, ['sharedLayer']);
    await expect(`objectId=${shared}&objectType=layer&resolved=false`, []);
    await expect('objectId=marker-1&objectType=drawing', []);
    // The filtered items still carry their replies.
    const [m1] = await list(roomId, 'objectId=marker-1&resolved=false');
    assert.deepEqual(ids(m1!.replies), ids(replies));
  });

  test('a bad objectType or resolved filter is 400', async () => {
    for (const query of [
      'objectType=room',
      'objectType=Marker',
      'resolved=maybe',
      'resolved=yes',
      'objectType=marker&resolved=2',
    ]) {
      const res = await call(s.t.app, 'GET', `${commentsUrl(roomId)}?${query}`, { auth: s.users.owner.token });
      assertFieldError(res, `querystring.${query.includes('resolved') ? 'resolved' : 'objectType'}`);
    }
  });

  test('another room lists none of these comments', async () => {
    const other = await newRoom();
    await createComment(other, s.users.owner.token, { objectId: 'marker-1' });
    const theirs = await list(other, 'objectId=marker-1');
    assert.equal(theirs.length, 1);
    assert.ok(!ids(Object.values(c)).includes(theirs[0]!.id));
  });
});

describe('POST /api/rooms/:roomId/comments/:commentId/replies', () => {
  test('201 with the reply; the comment lists it', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, s.users.owner.token);
    const json = assertOk(await postReply(roomId, comment.id, { body: 'Yes, it is.' }, s.users.viewer.token), 201);
    assert.deepEqual(Object.keys(json).sort(), ['reply', 'success']);
    assert.equal(json.success, true);
    const reply = json.reply as Reply;
    assert.deepEqual(Object.keys(reply).sort(), REPLY_KEYS);
    assert.match(reply.id, /^reply-.+/);
    assert.equal(reply.commentId, comment.id);
    assert.equal(reply.body, 'Yes, it is.');
    assert.deepEqual(reply.author, { kind: 'user', id: s.users.viewer.id });
    assert.ok(Number.isInteger(reply.createdAt) && reply.createdAt > 0);
    assert.deepEqual((await find(roomId, comment.id))!.replies, [reply]);

    const token = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    const byToken = await createReply(roomId, comment.id, token.token, 'from a script');
    assert.deepEqual(
      byToken,
      { id: byToken.id, body: 'from a script' },
      'a write-only token hears only the id and what it sent',
    );
    const replies = (await find(roomId, comment.id))!.replies;
    assert.deepEqual(ids(replies), ids([reply, byToken]));
    assert.deepEqual(replies[1]!.author, { kind: 'token', id: token.id, name: 'token write' });
  });

  test("a comment of another room, addressed through this room's path, or an unknown comment is 404", async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const theirs = await createComment(other, s.users.owner.token);
    assertError(await postReply(roomId, theirs.id, { body: 'sneaky' }, s.users.owner.token), 404, 'not_found');
    assertError(
      await postReply(roomId, 'comment-doesnotexist', { body: 'hello?' }, s.users.owner.token),
      404,
      'not_found',
    );
    assert.deepEqual((await find(other, theirs.id))!.replies, []);
    assert.deepEqual(await history(roomId), []);
  });

  test('the body rules apply to replies', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, s.users.owner.token);
    const cases: [string, unknown, string][] = [
      ['missing', {}, 'body.body'],
      ['empty', { body: '' }, 'body.body'],
      ['whitespace', { body: '   \n ' }, 'body.body'],
      ['5001', { body: 'y'.repeat(5001) }, 'body.body'],
      ['number', { body: 5 }, 'body.body'],
      ['unknown field', { body: 'ok', author: 'me' }, 'body.author'],
    ];
    for (const [name, body, field] of cases) {
      const res = await postReply(roomId, comment.id, body, s.users.owner.token);
      labelled(name, () => assertFieldError(res, field));
    }
    assert.deepEqual((await find(roomId, comment.id))!.replies, []);
    const max = await createReply(roomId, comment.id, s.users.owner.token, 'y'.repeat(5000));
    assert.equal(max.body.length, 5000);
  });
});

describe('PATCH /api/rooms/:roomId/comments/:commentId (resolve)', () => {
  test('resolves and reopens; the answer carries the comment and the list filters follow', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, s.users.viewer.token);
    const reply = await createReply(roomId, comment.id, s.users.viewer.token);
    const token = await issueToken(s.t.app, s.users.owner, roomId, ['write']);

    const resolved = assertOk(await patchComment(roomId, comment.id, { resolved: true }, s.users.owner.token));
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

    const reopened = assertOk(await patchComment(roomId, comment.id, { resolved: false }, s.users.editor.token));
    assert.equal(reopened.comment.resolved, false);
    assert.deepEqual(await list(roomId, 'resolved=true'), []);
    assert.deepEqual(ids(await list(roomId, 'resolved=false')), [comment.id]);

    assert.equal(
      assertOk(await patchComment(roomId, comment.id, { resolved: true }, token.token)).comment.resolved,
      true,
    );
    assert.deepEqual(ids(await list(roomId, 'resolved=true')), [comment.id]);
    // Resolving twice is harmless.
    assert.equal(
      assertOk(await patchComment(roomId, comment.id, { resolved: true }, s.users.owner.token)).comment.resolved,
      true,
    );
  });

  test('needs write: viewer 403 forbidden, read token 403, stranger 403, anonymous 401; nothing changes', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, s.users.viewer.token);
    const readToken = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
    assertError(await patchComment(roomId, comment.id, { resolved: true }, s.users.viewer.token), 403, 'forbidden');
    assertError(
      await patchComment(roomId, comment.id, { resolved: true }, readToken.token),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksWrite,
    );
    assertError(await patchComment(roomId, comment.id, { resolved: true }, s.users.stranger.token), 403, 'forbidden');
    assertError(await patchComment(roomId, comment.id, { resolved: true }), 401, 'unauthorized');
    assert.equal((await find(roomId, comment.id))!.resolved, false);
  });

  test('a missing or non-boolean resolved is 400; unknown or foreign comments are 404', async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const comment = await createComment(roomId, s.users.owner.token);
    const theirs = await createComment(other, s.users.owner.token);
    for (const body of [
      {},
      { resolved: 'true' },
      { resolved: 1 },
      { resolved: null },
      { resolved: true, body: 'edit' },
    ]) {
      assertFieldError(await patchComment(roomId, comment.id, body, s.users.owner.token), 'body.resolved', 'body.body');
    }
    assertError(
      await patchComment(roomId, 'comment-unknown', { resolved: true }, s.users.owner.token),
      404,
      'not_found',
    );
    assertError(await patchComment(roomId, theirs.id, { resolved: true }, s.users.owner.token), 404, 'not_found');
    assert.equal((await find(roomId, comment.id))!.resolved, false);
    assert.equal((await find(other, theirs.id))!.resolved, false);
  });
});
