import type { Db } from '../../db/database.js';
import type { RoomTable } from '../../db/room-table.js';
import type { CommentRepliesTable, CommentsTable } from '../../db/tables.js';
import type { Exchange } from '../exchange/exchange.js';
import { objectsExchange } from '../exchange/file-tables.js';
import { checker, num, text, when } from '../exchange/restore-values.js';
import { presentComment, presentReply } from './comments.presenter.js';
import type { CommentsRepository } from './comments.repository.js';
import { Comment, Reply } from './comments.schemas.js';

const checkComment = checker('comment', Comment, (row: CommentsTable) => presentComment(row));
const checkReply = checker('reply', Reply, presentReply);

/** Comment threads; restored under the importer's name, on the restored object they were about. */
export function commentsExchange(db: Db, comments: CommentsRepository): Exchange<CommentsTable> {
  return objectsExchange({
    source: 'comments',
    description: 'Comment threads on markers, drawings and layers',
    omit: ['room_id'],
    columns: {
      id: 'TEXT',
      object_id: 'TEXT',
      object_type: 'TEXT',
      object_name: 'TEXT',
      body: 'TEXT',
      lat: 'REAL',
      lng: 'REAL',
      resolved: 'BOOLEAN',
      author_kind: 'TEXT',
      author_id: 'TEXT',
      created_at: 'time',
      updated_at: 'time',
    },
    store: comments,
    db,
    restore: {
      kind: 'comment',
      check: checkComment,
      after: ['markers', 'drawings', 'layers'],
      counted: 'comments',
      own(r, context) {
        context.countOne();
        const object =
          r.object_type === 'marker'
            ? context.newIdOf('marker', r.object_id)
            : r.object_type === 'drawing'
              ? context.newIdOf('drawing', r.object_id)
              : (context.newIdOf('layer', r.object_id) ?? context.newIdOf('raster', r.object_id));
        return {
          // A comment on an object the export does not hold (deleted since) keeps the id it had.
          object_id: object ?? String(r.object_id),
          object_type: text(r.object_type) ?? '',
          object_name: text(r.object_name),
          body: text(r.body) ?? '',
          lat: num(r.lat),
          lng: num(r.lng),
          resolved: r.resolved ? 1 : 0,
          author_kind: context.actor.kind,
          author_id: context.actor.id,
          created_at: when(r.created_at),
          updated_at: when(r.updated_at),
        };
      },
    },
  });
}

/** Replies to comments; a reply whose comment the file does not hold is left out. */
export function repliesExchange(
  comments: CommentsRepository,
  replies: RoomTable<'comment_replies'>,
): Exchange<CommentRepliesTable> {
  return objectsExchange({
    source: 'comment_replies',
    description: 'Replies to comments',
    omit: ['room_id'],
    columns: {
      id: 'TEXT',
      comment_id: 'TEXT',
      body: 'TEXT',
      author_kind: 'TEXT',
      author_id: 'TEXT',
      created_at: 'time',
    },
    store: {
      list: async (roomId) =>
        comments.repliesOf(
          roomId,
          (await comments.list(roomId)).map((c) => c.id),
        ),
      insert: (trx, rows) => replies.insert(trx, rows),
    },
    restore: {
      kind: 'reply',
      check: checkReply,
      after: ['comments'],
      counted: 'replies',
      own(r, context) {
        const commentId = context.newIdOf('comment', r.comment_id);
        if (!commentId) return null;
        context.countOne();
        return {
          comment_id: commentId,
          body: text(r.body) ?? '',
          author_kind: context.actor.kind,
          author_id: context.actor.id,
          created_at: when(r.created_at),
        };
      },
    },
  });
}
