import { actorOf, type Caller, type Grant } from '../../auth/access.js';
import { authorizeDeleteAuthored } from '../../auth/policies.js';
import type { RoomTable } from '../../db/room-table.js';
import type { CommentRepliesTable, CommentsTable } from '../../db/tables.js';
import { badRequest, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { WritePath } from '../history/write-path.js';
import type { ActorNames } from '../users/actor-names.js';
import type { RoomRow } from '../../db/tables.js';
import { authorOf, presentComment, presentReply, presentThreads } from './comments.presenter.js';
import type { CommentsRepository } from './comments.repository.js';
import type { CommentQuery, CreateCommentInput } from './comments.schemas.js';

function checkBody(body: string) {
  if (body.trim() === '')
    throw badRequest('body must not be empty', [{ field: 'body.body', message: 'must not be empty' }]);
}

/**
 * Comments and replies. Members of every role may comment, reply and delete what they
 * wrote; owners and editors (any user session with write) may delete anything; a room token
 * deletes only what it wrote (auth/policies.ts). Resolving needs write.
 */
export interface CommentsServiceParts {
  comments: CommentsRepository;
  replies: RoomTable<'comment_replies'>;
  writePath: WritePath;
  /** The room's layers (vector and raster): a comment on a layer must name one of them. */
  layers: Pick<RoomTable<'layers'>, 'existing'>;
  /** Authors' display names. */
  names: ActorNames;
}

export class CommentsService {
  private readonly comments: CommentsRepository;
  private readonly replies: RoomTable<'comment_replies'>;
  private readonly writePath: WritePath;
  private readonly layers: Pick<RoomTable<'layers'>, 'existing'>;
  private readonly names: ActorNames;

  constructor(parts: CommentsServiceParts) {
    ({
      comments: this.comments,
      replies: this.replies,
      writePath: this.writePath,
      layers: this.layers,
      names: this.names,
    } = parts);
  }

  async list(room: RoomRow, filter: CommentQuery) {
    const rows = await this.comments.listFiltered(room.id, filter);
    const replies = await this.comments.repliesOf(
      room.id,
      rows.map((r) => r.id),
    );
    return { comments: presentThreads(rows, replies, await this.names.of([...rows, ...replies].map(authorOf))) };
  }

  /** The names of a thread's authors (read before a write that presents it: the write's transaction reads nothing else). */
  private async threadNames(roomId: string, commentId: string) {
    const [comment, replies] = await Promise.all([
      this.comments.find(roomId, commentId),
      this.comments.repliesOf(roomId, [commentId]),
    ]);
    return this.names.of([...(comment ? [comment] : []), ...replies].map(authorOf));
  }

  async create(room: RoomRow, caller: Caller, input: CreateCommentInput) {
    checkBody(input.body);
    if ((input.lat === undefined) !== (input.lng === undefined)) {
      throw badRequest('lat and lng go together: give both or neither', [
        { field: 'body.lat', message: 'lat and lng go together' },
      ]);
    }
    // Layers are checked (a comment on a layer names one of the room's); markers and drawings
    // are not: the contract lists every reason a comment on them is refused.
    if (input.objectType === 'layer' && !(await this.layers.existing(room.id, [input.objectId])).has(input.objectId)) {
      throw badRequest('objectId does not name a layer of this room', [
        { field: 'body.objectId', message: 'no such layer' },
      ]);
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
    const comment = presentComment(row, [], await this.names.of([actor]));
    await this.writePath.write(room.id, actor, async (trx) => {
      await this.comments.insert(trx, [row]);
      return {
        result: null,
        changes: [
          { type: 'comment.created', objectType: 'comment', objectId: row.id, changes: { ...input }, data: comment },
        ],
      };
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
    const reply = presentReply(row, await this.names.of([actor]));
    await this.writePath.write(room.id, actor, async (trx) => {
      if (!(await this.comments.find(room.id, commentId, trx))) throw notFound('Comment');
      await this.replies.insert(trx, [row]);
      return {
        result: null,
        changes: [
          { type: 'reply.created', objectType: 'reply', objectId: row.id, changes: { commentId, body }, data: reply },
        ],
      };
    });
    return { success: true, reply };
  }

  async resolve(room: RoomRow, caller: Caller, commentId: string, resolved: boolean) {
    const names = await this.threadNames(room.id, commentId);
    const comment = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const previous = await this.comments.find(room.id, commentId, trx);
      if (!previous) throw notFound('Comment');
      const row = { ...previous, resolved: resolved ? 1 : 0, updated_at: Date.now() };
      await this.comments.replace(trx, row);
      const comment = presentComment(row, await this.comments.repliesOf(room.id, [commentId], trx), names);
      return {
        result: comment,
        changes: [
          { type: 'comment.updated', objectType: 'comment', objectId: commentId, changes: { resolved }, data: comment },
        ],
      };
    });
    return { success: true, comment };
  }

  async deleteComment(room: RoomRow, caller: Caller, grant: Grant, commentId: string, ifLatestVersion?: number) {
    await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const row = await this.comments.find(room.id, commentId, trx);
      if (!row) throw notFound('Comment');
      authorizeDeleteAuthored(caller, grant, authorOf(row), 'comments');
      // Its replies go with it (and would not come back with a restore): a newer reply refuses it too.
      const replies = await this.comments.repliesOf(room.id, [commentId], trx);
      await this.writePath.ensureLatest(
        trx,
        room.id,
        ['comment', commentId],
        ifLatestVersion,
        replies.map((reply) => ['reply', reply.id]),
      );
      await this.comments.delete(trx, room.id, commentId);
      return {
        result: null,
        changes: [{ type: 'comment.deleted', objectType: 'comment', objectId: commentId, data: null }],
      };
    });
    return { success: true, commentId };
  }

  async deleteReply(
    room: RoomRow,
    caller: Caller,
    grant: Grant,
    commentId: string,
    replyId: string,
    ifLatestVersion?: number,
  ) {
    await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const row = await this.replies.find(room.id, replyId, trx);
      if (!row || row.comment_id !== commentId) throw notFound('Reply');
      authorizeDeleteAuthored(caller, grant, authorOf(row), 'replies');
      await this.writePath.ensureLatest(trx, room.id, ['reply', replyId], ifLatestVersion);
      await this.replies.delete(trx, room.id, replyId);
      return {
        result: null,
        changes: [
          { type: 'reply.deleted', objectType: 'reply', objectId: replyId, changes: { commentId }, data: null },
        ],
      };
    });
    return { success: true, replyId };
  }
}
