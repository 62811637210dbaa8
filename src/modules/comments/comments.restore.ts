import type { RoomTable } from '../../db/room-table.js';
import type { CommentRepliesTable, CommentsTable } from '../../db/tables.js';
import { notRestorable } from '../../errors.js';
import type { Restorable } from '../history/restorable.js';
import type { ActorNames } from '../users/actor-names.js';
import type { Actor } from '../../auth/access.js';
import { authorizeRestoreAuthored } from '../../auth/policies.js';
import { authorOf, presentComment, presentReply } from './comments.presenter.js';
import type { CommentsRepository } from './comments.repository.js';
import type { Comment, Reply } from './comments.schemas.js';
import type { Static } from 'typebox';

type KeptReply = Static<typeof Reply>;
type KeptComment = Static<typeof Comment>;

const replyRow = (roomId: string, reply: KeptReply): CommentRepliesTable => ({
  id: reply.id,
  comment_id: reply.commentId,
  room_id: roomId,
  body: reply.body,
  author_kind: reply.author.kind,
  author_id: reply.author.id,
  created_at: reply.createdAt,
});

/**
 * Comments back as history kept them, with the replies the kept comment showed that are gone
 * (replies written since stay); a reply comes back only under a comment that is there.
 */
export function commentRestorables(
  comments: CommentsRepository,
  replies: RoomTable<'comment_replies'>,
  actorNames: ActorNames,
): Restorable[] {
  /** The names of the thread's authors: the kept ones and those of replies written since. */
  const threadNames = async (roomId: string, commentId: string, kept: Actor[]) =>
    actorNames.of([...kept, ...(await comments.repliesOf(roomId, [commentId])).map(authorOf)]);
  const comment: Restorable = {
    objectType: 'comment',
    authorize: (caller, state) =>
      authorizeRestoreAuthored(caller, (state as typeof state & KeptComment).author, 'comments'),
    async prepare(roomId, state) {
      const kept = state as typeof state & Static<typeof Comment>;
      const authors = [kept.author, ...kept.replies.map((r) => r.author)];
      return { state, notes: [], names: await threadNames(roomId, kept.id, authors) };
    },
    async restore(trx, roomId, kept, names) {
      const state = kept as typeof kept & Static<typeof Comment>;
      const row: CommentsTable = {
        id: state.id,
        room_id: roomId,
        object_id: state.objectId,
        object_type: state.objectType,
        object_name: state.objectName,
        body: state.body,
        lat: state.lat,
        lng: state.lng,
        resolved: state.resolved ? 1 : 0,
        author_kind: state.author.kind,
        author_id: state.author.id,
        created_at: state.createdAt,
        updated_at: Date.now(),
      };
      const previous = await comments.put(trx, row);
      const present = await replies.existing(
        roomId,
        state.replies.map((r) => r.id),
        trx,
      );
      await replies.insert(
        trx,
        state.replies.filter((r) => !present.has(r.id)).map((r) => replyRow(roomId, r)),
      );
      const data = presentComment(row, await comments.repliesOf(roomId, [row.id], trx), names);
      return {
        change: {
          type: previous ? 'comment.updated' : 'comment.created',
          objectType: 'comment',
          objectId: row.id,
          data,
        },
      };
    },
  };
  const reply: Restorable = {
    objectType: 'reply',
    authorize: (caller, state) =>
      authorizeRestoreAuthored(caller, (state as typeof state & KeptReply).author, 'replies'),
    async prepare(_roomId, state) {
      return { state, notes: [], names: await actorNames.of([(state as typeof state & KeptReply).author]) };
    },
    async restore(trx, roomId, kept, names) {
      const row = replyRow(roomId, kept as typeof kept & KeptReply);
      if (!(await comments.find(roomId, row.comment_id, trx))) {
        throw notRestorable(`The reply's comment ${row.comment_id} is gone: restore the comment first`);
      }
      await replies.put(trx, row);
      return {
        change: { type: 'reply.created', objectType: 'reply', objectId: row.id, data: presentReply(row, names) },
      };
    },
  };
  return [comment, reply];
}
