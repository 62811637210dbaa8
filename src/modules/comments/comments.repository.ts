import type { Db } from '../../db/database.js';
import { inChunks, RoomTable } from '../../db/room-table.js';
import type { CommentRepliesTable } from '../../db/tables.js';
import type { CommentQuery } from './comments.schemas.js';

/** Comments of rooms; replies are their own RoomTable ('comment_replies'). */
export class CommentsRepository extends RoomTable<'comments'> {
  constructor(db: Db) {
    super(db, 'comments');
  }

  /** The room's comments matching the filter, oldest first. */
  listFiltered(roomId: string, filter: CommentQuery) {
    let query = this.db.selectFrom('comments').selectAll().where('room_id', '=', roomId);
    if (filter.objectId !== undefined) query = query.where('object_id', '=', filter.objectId);
    if (filter.objectType !== undefined) query = query.where('object_type', '=', filter.objectType);
    if (filter.resolved !== undefined) query = query.where('resolved', '=', filter.resolved ? 1 : 0);
    return query.orderBy('created_at').orderBy('id').execute();
  }

  /** The replies to these comments, oldest first. */
  async repliesOf(roomId: string, commentIds: string[], db: Db = this.db): Promise<CommentRepliesTable[]> {
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
}
