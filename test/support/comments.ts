import assert from 'node:assert/strict';
import {
  assertOk,
  call,
  createRoomWithMembers,
  roomCounts,
  roomHistory,
  type TestApp,
  type Users,
} from '../helpers.js';

/** What the comments*.test.ts files share: the shapes of comments and replies and the calls they make. */

export const COMMENT_KEYS = [
  'author',
  'body',
  'createdAt',
  'id',
  'lat',
  'lng',
  'objectId',
  'objectName',
  'objectType',
  'replies',
  'resolved',
  'updatedAt',
].sort();
export const REPLY_KEYS = ['author', 'body', 'commentId', 'createdAt', 'id'].sort();

export type Comment = Record<string, any> & { id: string; replies: Reply[] };
export type Reply = Record<string, any> & { id: string };

export const commentsUrl = (roomId: string) => `/api/rooms/${roomId}/comments`;
export const commentUrl = (roomId: string, commentId: string) => `/api/rooms/${roomId}/comments/${commentId}`;
export const repliesUrl = (roomId: string, commentId: string) => `/api/rooms/${roomId}/comments/${commentId}/replies`;
export const replyUrl = (roomId: string, commentId: string, replyId: string) =>
  `/api/rooms/${roomId}/comments/${commentId}/replies/${replyId}`;

export const ids = (items: { id: string }[]) => items.map((i) => i.id).sort();

/**
 * The comment calls of a test file, bound to its world (read at each call, so the file can
 * create them at load time and set the world in `before`).
 */
export function commentCalls(world: () => { t: TestApp; users: Users }) {
  const app = () => world().t.app;
  const owner = () => world().users.owner;

  const postComment = (roomId: string, body: unknown, auth?: string) =>
    call(app(), 'POST', commentsUrl(roomId), { auth, body });
  const postReply = (roomId: string, commentId: string, body: unknown, auth?: string) =>
    call(app(), 'POST', repliesUrl(roomId, commentId), { auth, body });
  const patchComment = (roomId: string, commentId: string, body: unknown, auth?: string) =>
    call(app(), 'PATCH', commentUrl(roomId, commentId), { auth, body });
  const deleteComment = (roomId: string, commentId: string, auth?: string) =>
    call(app(), 'DELETE', commentUrl(roomId, commentId), { auth });
  const deleteReply = (roomId: string, commentId: string, replyId: string, auth?: string) =>
    call(app(), 'DELETE', replyUrl(roomId, commentId, replyId), { auth });

  async function createComment(roomId: string, auth: string, body: Record<string, unknown> = {}): Promise<Comment> {
    const json = assertOk(
      await postComment(roomId, { objectId: 'marker-abc', objectType: 'marker', body: 'A comment', ...body }, auth),
      201,
    );
    assert.equal(json.success, true);
    return json.comment;
  }

  async function createReply(roomId: string, commentId: string, auth: string, body = 'A reply'): Promise<Reply> {
    const json = assertOk(await postReply(roomId, commentId, { body }, auth), 201);
    assert.equal(json.success, true);
    return json.reply;
  }

  async function list(roomId: string, query = '', auth = owner().token): Promise<Comment[]> {
    const body = assertOk(await call(app(), 'GET', `${commentsUrl(roomId)}${query ? `?${query}` : ''}`, { auth }));
    assert.deepEqual(Object.keys(body), ['comments']);
    return body.comments;
  }

  return {
    /** A new private room of the owner with the editor and the viewer as members. */
    newRoom: (body: object = {}) => createRoomWithMembers(app(), world().users, body),
    postComment,
    postReply,
    patchComment,
    deleteComment,
    deleteReply,
    createComment,
    createReply,
    list,
    find: async (roomId: string, commentId: string) => (await list(roomId)).find((c) => c.id === commentId),
    history: (roomId: string) => roomHistory(app(), roomId, owner().token),
    counts: (roomId: string) => roomCounts(app(), roomId, owner().token),
  };
}
