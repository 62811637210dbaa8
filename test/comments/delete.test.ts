/**
 * Comments and replies over HTTP: the deletion rule (tokens and viewers delete only what
 * they wrote), access, history, counts and clear.
 * Contract: docs/http-interface.md (Comment and reply, Comments, States, Errors) and docs/contract-decisions.md.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError, assertOk, call, createRoom, issueToken, scaffoldSuite, TOKEN_ERRORS } from '../helpers.js';
import { commentCalls, commentsUrl, ids } from '../support/comments.js';
import { createInlineLayer } from '../support/layers.js';

const s = scaffoldSuite({ rooms: [] });
const {
  newRoom,
  postComment,
  postReply,
  patchComment,
  deleteComment,
  deleteReply,
  createComment,
  createReply,
  list,
  find,
  history,
  counts,
} = commentCalls(() => s);

describe('deleting comments and replies', () => {
  test('a room token deletes only the comments and replies it wrote', async () => {
    const roomId = await newRoom();
    const a = await issueToken(s.t.app, s.users.owner, roomId, ['read', 'write']);
    const b = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    const ofA = await createComment(roomId, a.token, { body: 'by A' });
    const ofB = await createComment(roomId, b.token, { body: 'by B' });
    const ofOwner = await createComment(roomId, s.users.owner.token, { body: 'by owner' });
    const replyOfA = await createReply(roomId, ofB.id, a.token);
    const replyOfB = await createReply(roomId, ofB.id, b.token);
    const replyOfOwner = await createReply(roomId, ofA.id, s.users.owner.token);

    assertError(await deleteComment(roomId, ofB.id, a.token), 403, 'forbidden');
    assertError(await deleteComment(roomId, ofOwner.id, a.token), 403, 'forbidden');
    assertError(await deleteReply(roomId, ofB.id, replyOfB.id, a.token), 403, 'forbidden');
    assertError(await deleteReply(roomId, ofA.id, replyOfOwner.id, a.token), 403, 'forbidden');
    assert.deepEqual(ids(await list(roomId)), ids([ofA, ofB, ofOwner]));
    assert.equal((await find(roomId, ofB.id))!.replies.length, 2);
    assert.equal((await find(roomId, ofA.id))!.replies.length, 1);

    assert.deepEqual(assertOk(await deleteReply(roomId, ofB.id, replyOfA.id, a.token)), {
      success: true,
      replyId: replyOfA.id,
    });
    assert.deepEqual(ids((await find(roomId, ofB.id))!.replies), [replyOfB.id]);
    assert.deepEqual(assertOk(await deleteComment(roomId, ofA.id, a.token)), { success: true, commentId: ofA.id });
    assert.deepEqual(assertOk(await deleteComment(roomId, ofB.id, b.token)), { success: true, commentId: ofB.id });
    assert.deepEqual(ids(await list(roomId)), [ofOwner.id]);
  });

  test('viewers create, reply and delete their own, but not what others wrote', async () => {
    const roomId = await newRoom();
    const token = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    const mine = await createComment(roomId, s.users.viewer.token, { body: 'viewer comment' });
    const ownerComment = await createComment(roomId, s.users.owner.token);
    const tokenComment = await createComment(roomId, token.token);
    const myReply = await createReply(roomId, ownerComment.id, s.users.viewer.token);
    const editorReply = await createReply(roomId, mine.id, s.users.editor.token);

    assertError(await deleteComment(roomId, ownerComment.id, s.users.viewer.token), 403, 'forbidden');
    assertError(await deleteComment(roomId, tokenComment.id, s.users.viewer.token), 403, 'forbidden');
    assertError(await deleteReply(roomId, mine.id, editorReply.id, s.users.viewer.token), 403, 'forbidden');
    assert.deepEqual(ids((await find(roomId, mine.id))!.replies), [editorReply.id]);

    assert.deepEqual(assertOk(await deleteReply(roomId, ownerComment.id, myReply.id, s.users.viewer.token)), {
      success: true,
      replyId: myReply.id,
    });
    assert.deepEqual((await find(roomId, ownerComment.id))!.replies, []);
    assert.deepEqual(assertOk(await deleteComment(roomId, mine.id, s.users.viewer.token)), {
      success: true,
      commentId: mine.id,
    });
    assert.deepEqual(ids(await list(roomId)), ids([ownerComment, tokenComment]));
  });

  test('owner and editor sessions delete any comment or reply', async () => {
    const roomId = await newRoom();
    const token = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    const byViewer = await createComment(roomId, s.users.viewer.token);
    const byToken = await createComment(roomId, token.token);
    const byOwner = await createComment(roomId, s.users.owner.token);
    const byEditor = await createComment(roomId, s.users.editor.token);
    const tokenReply = await createReply(roomId, byEditor.id, token.token);
    const viewerReply = await createReply(roomId, byEditor.id, s.users.viewer.token);

    assertOk(await deleteComment(roomId, byViewer.id, s.users.owner.token));
    assertOk(await deleteComment(roomId, byToken.id, s.users.editor.token));
    assertOk(await deleteComment(roomId, byOwner.id, s.users.editor.token));
    assert.deepEqual(assertOk(await deleteReply(roomId, byEditor.id, tokenReply.id, s.users.owner.token)), {
      success: true,
      replyId: tokenReply.id,
    });
    assert.deepEqual(assertOk(await deleteReply(roomId, byEditor.id, viewerReply.id, s.users.editor.token)), {
      success: true,
      replyId: viewerReply.id,
    });
    assertOk(await deleteComment(roomId, byEditor.id, s.users.owner.token));
    assert.deepEqual(await list(roomId), []);
  });

  test('deleting a comment removes its replies; deleting again is 404, and so are its replies', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, s.users.owner.token);
    const keep = await createComment(roomId, s.users.owner.token, { body: 'keep me' });
    const r1 = await createReply(roomId, comment.id, s.users.editor.token);
    const r2 = await createReply(roomId, comment.id, s.users.viewer.token);
    const kept = await createReply(roomId, keep.id, s.users.viewer.token);
    assertOk(await deleteComment(roomId, comment.id, s.users.owner.token));
    assert.deepEqual(ids(await list(roomId)), [keep.id]);
    assert.deepEqual((await find(roomId, keep.id))!.replies, [kept]);

    assertError(await deleteComment(roomId, comment.id, s.users.owner.token), 404, 'not_found');
    assertError(await deleteReply(roomId, comment.id, r1.id, s.users.owner.token), 404, 'not_found');
    assertError(await deleteReply(roomId, comment.id, r2.id, s.users.viewer.token), 404, 'not_found');
    assertError(await postReply(roomId, comment.id, { body: 'too late' }, s.users.owner.token), 404, 'not_found');
    assertError(await patchComment(roomId, comment.id, { resolved: true }, s.users.owner.token), 404, 'not_found');

    assertOk(await deleteReply(roomId, keep.id, kept.id, s.users.viewer.token));
    assertError(await deleteReply(roomId, keep.id, kept.id, s.users.viewer.token), 404, 'not_found');
    assertError(await deleteReply(roomId, keep.id, kept.id, s.users.owner.token), 404, 'not_found');
  });

  test('ids of another room, or a reply addressed under the wrong comment, are 404 and delete nothing', async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const theirs = await createComment(other, s.users.owner.token);
    const theirReply = await createReply(other, theirs.id, s.users.owner.token);
    const mine = await createComment(roomId, s.users.owner.token);
    const mine2 = await createComment(roomId, s.users.owner.token);
    const myReply = await createReply(roomId, mine.id, s.users.owner.token);

    assertError(await deleteComment(roomId, theirs.id, s.users.owner.token), 404, 'not_found');
    assertError(await deleteReply(roomId, theirs.id, theirReply.id, s.users.owner.token), 404, 'not_found');
    assertError(await deleteReply(roomId, mine.id, theirReply.id, s.users.owner.token), 404, 'not_found');
    assertError(await deleteReply(roomId, mine2.id, myReply.id, s.users.owner.token), 404, 'not_found');
    assertError(await deleteComment(roomId, 'comment-unknown', s.users.owner.token), 404, 'not_found');
    assert.deepEqual((await find(other, theirs.id))!.replies, [theirReply]);
    assert.deepEqual((await find(roomId, mine.id))!.replies, [myReply]);
  });

  test('a read-only token cannot create, reply or delete: 403 "API token lacks \'write\' permission"', async () => {
    const roomId = await newRoom();
    const readToken = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
    const comment = await createComment(roomId, s.users.owner.token);
    const reply = await createReply(roomId, comment.id, s.users.owner.token);
    assertError(
      await postComment(roomId, { objectId: 'x', objectType: 'marker', body: 'hi' }, readToken.token),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksWrite,
    );
    assertError(
      await postReply(roomId, comment.id, { body: 'hi' }, readToken.token),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksWrite,
    );
    assertError(
      await deleteReply(roomId, comment.id, reply.id, readToken.token),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksWrite,
    );
    assertError(await deleteComment(roomId, comment.id, readToken.token), 403, 'forbidden', TOKEN_ERRORS.lacksWrite);
    // It may read them.
    assert.deepEqual(await list(roomId, '', readToken.token), await list(roomId));
    assert.deepEqual(ids(await list(roomId)), [comment.id]);
    assert.deepEqual((await find(roomId, comment.id))!.replies, [reply]);
  });

  test('a write-only token may comment but not list; a token of another room is refused', async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const writeOnly = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    const foreign = await issueToken(s.t.app, s.users.owner, other, ['read', 'write']);
    await createComment(roomId, writeOnly.token);
    assertError(
      await call(s.t.app, 'GET', commentsUrl(roomId), { auth: writeOnly.token }),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksRead,
    );
    assertError(
      await call(s.t.app, 'GET', commentsUrl(roomId), { auth: foreign.token }),
      403,
      'forbidden',
      TOKEN_ERRORS.wrongRoom,
    );
    assertError(
      await postComment(roomId, { objectId: 'x', objectType: 'marker', body: 'hi' }, foreign.token),
      403,
      'forbidden',
      TOKEN_ERRORS.wrongRoom,
    );
    assert.equal((await list(roomId)).length, 1);
  });

  test('anonymous callers list a public room but cannot create, reply, resolve or delete (401)', async () => {
    const roomId = await newRoom({ isPublic: true });
    const comment = await createComment(roomId, s.users.owner.token);
    const reply = await createReply(roomId, comment.id, s.users.owner.token);
    const anonymous = assertOk(await call(s.t.app, 'GET', commentsUrl(roomId)));
    assert.deepEqual(anonymous, { comments: await list(roomId) });
    assert.deepEqual(anonymous.comments[0].replies, [reply]);
    assertError(await postComment(roomId, { objectId: 'x', objectType: 'marker', body: 'hi' }), 401, 'unauthorized');
    assertError(await postReply(roomId, comment.id, { body: 'hi' }), 401, 'unauthorized');
    assertError(await patchComment(roomId, comment.id, { resolved: true }), 401, 'unauthorized');
    assertError(await deleteReply(roomId, comment.id, reply.id), 401, 'unauthorized');
    assertError(await deleteComment(roomId, comment.id), 401, 'unauthorized');
    // A signed-in non-member of a public room reads but does not comment.
    assert.equal((await list(roomId, '', s.users.stranger.token)).length, 1);
    assertError(
      await postComment(roomId, { objectId: 'x', objectType: 'marker', body: 'hi' }, s.users.stranger.token),
      403,
      'forbidden',
    );
    assert.deepEqual(ids(await list(roomId)), [comment.id]);
  });

  test('a non-member of a private room gets 403, an anonymous caller 401', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, s.users.owner.token);
    const reply = await createReply(roomId, comment.id, s.users.owner.token);
    const auth = s.users.stranger.token;
    assertError(await call(s.t.app, 'GET', commentsUrl(roomId), { auth }), 403, 'forbidden');
    assertError(await postComment(roomId, { objectId: 'x', objectType: 'marker', body: 'hi' }, auth), 403, 'forbidden');
    assertError(await postReply(roomId, comment.id, { body: 'hi' }, auth), 403, 'forbidden');
    assertError(await deleteReply(roomId, comment.id, reply.id, auth), 403, 'forbidden');
    assertError(await deleteComment(roomId, comment.id, auth), 403, 'forbidden');
    assertError(await call(s.t.app, 'GET', commentsUrl(roomId)), 401, 'unauthorized');
    assertError(await postComment(roomId, { objectId: 'x', objectType: 'marker', body: 'hi' }), 401, 'unauthorized');
    assert.deepEqual((await find(roomId, comment.id))!.replies, [reply]);
  });
});

describe('history, counts and clear', () => {
  test('each change writes one history entry with its actor (user or token)', async () => {
    const roomId = await newRoom();
    const token = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    const comment = await createComment(roomId, s.users.viewer.token, {
      objectId: 'marker-9',
      objectType: 'marker',
      body: 'look',
      lat: 1,
      lng: 2,
    });
    const reply = await createReply(roomId, comment.id, token.token, 'seen');
    assertOk(await patchComment(roomId, comment.id, { resolved: true }, s.users.editor.token));
    assertOk(await deleteReply(roomId, comment.id, reply.id, token.token));
    const second = await createComment(roomId, token.token);
    assertOk(await deleteComment(roomId, second.id, token.token));
    assertOk(await deleteComment(roomId, comment.id, s.users.owner.token));

    const events = (await history(roomId)).reverse();
    const summary = events.map((e) => [e.type, e.objectType, e.objectId, e.actor.kind, e.actor.id]);
    assert.deepEqual(summary, [
      ['comment.created', 'comment', comment.id, 'user', s.users.viewer.id],
      ['reply.created', 'reply', reply.id, 'token', token.id],
      ['comment.updated', 'comment', comment.id, 'user', s.users.editor.id],
      ['reply.deleted', 'reply', reply.id, 'token', token.id],
      ['comment.created', 'comment', second.id, 'token', token.id],
      ['comment.deleted', 'comment', second.id, 'token', token.id],
      ['comment.deleted', 'comment', comment.id, 'user', s.users.owner.id],
    ]);
    assert.deepEqual(events[0]!.changes, { objectId: 'marker-9', objectType: 'marker', body: 'look', lat: 1, lng: 2 });
    assert.deepEqual(events[2]!.changes, { resolved: true });
    // Versions advance by one per change.
    for (let i = 1; i < events.length; i++) assert.equal(events[i]!.version, events[i - 1]!.version + 1);
  });

  test('refused changes (400, 403, 404) write no history', async () => {
    const roomId = await newRoom();
    const comment = await createComment(roomId, s.users.owner.token);
    const before = await history(roomId);
    await postComment(roomId, { objectId: 'x', objectType: 'room', body: 'hi' }, s.users.owner.token);
    await postReply(roomId, comment.id, { body: ' ' }, s.users.owner.token);
    await postReply(roomId, 'comment-unknown', { body: 'hi' }, s.users.owner.token);
    await patchComment(roomId, comment.id, { resolved: true }, s.users.viewer.token);
    await deleteComment(roomId, comment.id, s.users.viewer.token);
    await deleteComment(roomId, 'comment-unknown', s.users.owner.token);
    assert.deepEqual(await history(roomId), before);
  });

  test('counts.comments follows creates and deletes and does not count replies', async () => {
    const roomId = await newRoom();
    assert.equal((await counts(roomId)).comments, 0);
    const a = await createComment(roomId, s.users.owner.token);
    const b = await createComment(roomId, s.users.viewer.token);
    assert.equal((await counts(roomId)).comments, 2);
    await createReply(roomId, a.id, s.users.editor.token);
    await createReply(roomId, a.id, s.users.editor.token);
    assert.equal((await counts(roomId)).comments, 2);
    assertOk(await deleteComment(roomId, a.id, s.users.owner.token));
    assert.equal((await counts(roomId)).comments, 1);
    assertOk(await deleteComment(roomId, b.id, s.users.viewer.token));
    assert.equal((await counts(roomId)).comments, 0);
  });

  test('clear removes every comment and reply (removed.comments = n); other rooms keep theirs', async () => {
    const roomId = await newRoom();
    const other = await createRoom(s.t.app, s.users.owner);
    const survivor = await createComment(other, s.users.owner.token);
    const comments = [
      await createComment(roomId, s.users.owner.token),
      await createComment(roomId, s.users.viewer.token),
      await createComment(roomId, s.users.editor.token, {
        objectType: 'layer',
        objectId: (await createInlineLayer(s.t.app, roomId, s.users.owner.token)).id,
      }),
    ];
    await createReply(roomId, comments[0]!.id, s.users.viewer.token);
    await createReply(roomId, comments[0]!.id, s.users.editor.token);
    const body = assertOk(await call(s.t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: s.users.owner.token }));
    assert.equal(body.success, true);
    assert.equal(body.removed.comments, 3);
    assert.deepEqual(await list(roomId), []);
    assert.equal((await counts(roomId)).comments, 0);
    assertError(await postReply(roomId, comments[0]!.id, { body: 'gone?' }, s.users.owner.token), 404, 'not_found');
    assert.deepEqual(ids(await list(other)), [survivor.id]);
    const [latest] = await history(roomId);
    assert.equal(latest!.type, 'room.cleared');
    assert.equal(latest!.changes!.comments, 3);
    // The room takes new comments afterwards.
    await createComment(roomId, s.users.owner.token);
    assert.equal((await counts(roomId)).comments, 1);
  });
});
