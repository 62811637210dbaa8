import type { Caller, Grant } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import { inChunks, type RoomTable } from '../../db/room-table.js';
import type { CommentRepliesTable, CommentsTable } from '../../db/tables.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { actorOf, type Actor, type WritePath } from '../history/write-path.js';
import type { RoomRow } from '../rooms/rooms.repository.js';
import type { CreateCommentInput } from './comments.schemas.js';

const author = (row: { author_kind: string; author_id: string }) => ({
  kind: row.author_kind as 'user' | 'token',
  id: row.author_id,
});

export const presentReply = (row: CommentRepliesTable) => ({
  id: row.id,
  commentId: row.comment_id,
  body: row.body,
  author: author(row),
  createdAt: row.created_at,
});

export const presentComment = (row: CommentsTable, replies: CommentRepliesTable[] = []) => ({
  id: row.id,
  objectId: row.object_id,
  objectType: row.object_type,
  objectName: row.object_name,
  body: row.body,
  lat: row.lat,
  lng: row.lng,
  resolved: row.resolved === 1,
  author: author(row),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  replies: replies.map(presentReply),
});

function checkBody(body: string) {
  if (body.trim() === '') throw badRequest('body must not be empty', [{ field: 'body.body', message: 'must not be empty' }]);
}

export interface CommentFilter {
  objectId?: string;
  objectType?: string;
  resolved?: boolean;
}

/**
 * Comments and replies. Members of every role may comment, reply and delete what they
 * wrote; owners and editors (any user session with write) may delete anything; a room token
 * deletes only what it wrote. Resolving needs write.
 */
export class CommentsService {
  constructor(
    private readonly db: Db,
    private readonly comments: RoomTable<'comments'>,
    private readonly replies: RoomTable<'comment_replies'>,
    private readonly writePath: WritePath,
  ) {}

  async list(room: RoomRow, filter: CommentFilter) {
    let query = this.db.selectFrom('comments').selectAll().where('room_id', '=', room.id);
    if (filter.objectId !== undefined) query = query.where('object_id', '=', filter.objectId);
    if (filter.objectType !== undefined) query = query.where('object_type', '=', filter.objectType);
    if (filter.resolved !== undefined) query = query.where('resolved', '=', filter.resolved ? 1 : 0);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    const byComment = new Map<string, CommentRepliesTable[]>();
    for (const reply of await this.repliesOf(room.id, rows.map((r) => r.id))) {
      const list = byComment.get(reply.comment_id);
      if (list) list.push(reply);
      else byComment.set(reply.comment_id, [reply]);
    }
    return { comments: rows.map((row) => presentComment(row, byComment.get(row.id))) };
  }

  private async repliesOf(roomId: string, commentIds: string[], db: Db = this.db) {
    const replies: CommentRepliesTable[] = [];
    for (const chunk of inChunks(commentIds)) {
      replies.push(
        ...(await db
          .selectFrom('comment_replies')
          .selectAll()
          .where('room_id', '=', roomId)
          .where('comment_id', 'in', chunk)
          .orderBy('created_at')
          .orderBy('id')
          .execute()),
      );
    }
    return replies;
  }

  async create(room: RoomRow, caller: Caller, input: CreateCommentInput) {
    checkBody(input.body);
    if ((input.lat === undefined) !== (input.lng === undefined)) {
      throw badRequest('lat and lng go together: give both or neither', [{ field: 'body.lat', message: 'lat and lng go together' }]);
    }
    const actor = actorOf(caller);
    const now = Date.now();
    const row: CommentsTable = {
      id: newId('comment'),
      room_id: room.id,
      object_id: input.objectId,
      object_type: input.objectType,
      object_name: input.objectName ?? null,
      body: input.body,
      lat: input.lat ?? null,
      lng: input.lng ?? null,
      resolved: 0,
      author_kind: actor.kind,
      author_id: actor.id,
      created_at: now,
      updated_at: now,
    };
    const comment = presentComment(row);
    await this.writePath.write(room.id, actor, async (trx) => {
      await this.comments.insert(trx, [row]);
      return { result: null, changes: [{ type: 'comment.created', objectType: 'comment', objectId: row.id, changes: { ...input }, data: comment }] };
    });
    return { success: true, comment };
  }

  async reply(room: RoomRow, caller: Caller, commentId: string, body: string) {
    checkBody(body);
    const actor = actorOf(caller);
    const row: CommentRepliesTable = {
      id: newId('reply'),
      comment_id: commentId,
      room_id: room.id,
      body,
      author_kind: actor.kind,
      author_id: actor.id,
      created_at: Date.now(),
    };
    const reply = presentReply(row);
    await this.writePath.write(room.id, actor, async (trx) => {
      if (!(await this.comments.find(room.id, commentId, trx))) throw notFound('Comment');
      await this.replies.insert(trx, [row]);
      return { result: null, changes: [{ type: 'reply.created', objectType: 'reply', objectId: row.id, changes: { commentId, body }, data: reply }] };
    });
    return { success: true, reply };
  }

  async resolve(room: RoomRow, caller: Caller, commentId: string, resolved: boolean) {
    const comment = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const previous = await this.comments.find(room.id, commentId, trx);
      if (!previous) throw notFound('Comment');
      const row = { ...previous, resolved: resolved ? 1 : 0, updated_at: Date.now() };
      await this.comments.replace(trx, row);
      const comment = presentComment(row, await this.repliesOf(room.id, [commentId], trx));
      return { result: comment, changes: [{ type: 'comment.updated', objectType: 'comment', objectId: commentId, changes: { resolved }, data: comment }] };
    });
    return { success: true, comment };
  }

  async deleteComment(room: RoomRow, caller: Caller, grant: Grant, commentId: string) {
    await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const row = await this.comments.find(room.id, commentId, trx);
      if (!row) throw notFound('Comment');
      mayDelete(caller, grant, author(row), 'comment');
      await this.comments.delete(trx, room.id, commentId);
      return { result: null, changes: [{ type: 'comment.deleted', objectType: 'comment', objectId: commentId, data: null }] };
    });
    return { success: true, commentId };
  }

  async deleteReply(room: RoomRow, caller: Caller, grant: Grant, commentId: string, replyId: string) {
    await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const row = await this.replies.find(room.id, replyId, trx);
      if (!row || row.comment_id !== commentId) throw notFound('Reply');
      mayDelete(caller, grant, author(row), 'reply');
      await this.replies.delete(trx, room.id, replyId);
      return { result: null, changes: [{ type: 'reply.deleted', objectType: 'reply', objectId: replyId, changes: { commentId }, data: null }] };
    });
    return { success: true, replyId };
  }
}

/** Tokens and viewers delete only what they wrote; owners and editors anything. */
function mayDelete(caller: Caller, grant: Grant, writtenBy: Actor, what: string) {
  const actor = actorOf(caller);
  const own = writtenBy.kind === actor.kind && writtenBy.id === actor.id;
  if (own) return;
  if (caller.kind === 'token') throw forbidden(`A room token may delete only the ${what === 'comment' ? 'comments' : 'replies'} it wrote`);
  if (!grant.capabilities.has('write')) throw forbidden(`The ${grant.role} role may delete only its own ${what === 'comment' ? 'comments' : 'replies'}`);
}
