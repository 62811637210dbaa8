import type { Actor } from '../../auth/access.js';
import type { CommentRepliesTable, CommentsTable } from '../../db/tables.js';
import { nameKey } from '../users/actor-names.js';

export const authorOf = (row: { author_kind: string; author_id: string }): Actor => ({
  kind: row.author_kind as Actor['kind'],
  id: row.author_id,
});

/** The author with their display name when `names` knows it (ActorNames). */
const namedAuthorOf = (row: { author_kind: string; author_id: string }, names?: Map<string, string>) => {
  const author = authorOf(row);
  const name = names?.get(nameKey(author));
  return name === undefined ? author : { ...author, name };
};

export const presentReply = (row: CommentRepliesTable, names?: Map<string, string>) => ({
  id: row.id,
  commentId: row.comment_id,
  body: row.body,
  author: namedAuthorOf(row, names),
  createdAt: row.created_at,
});

export const presentComment = (
  row: CommentsTable,
  replies: CommentRepliesTable[] = [],
  names?: Map<string, string>,
) => ({
  id: row.id,
  objectId: row.object_id,
  objectType: row.object_type,
  objectName: row.object_name,
  body: row.body,
  lat: row.lat,
  lng: row.lng,
  resolved: row.resolved === 1,
  author: namedAuthorOf(row, names),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  replies: replies.map((reply) => presentReply(reply, names)),
});

/** Comments with their replies, in order, replies grouped in one pass. */
export function presentThreads(comments: CommentsTable[], replies: CommentRepliesTable[], names?: Map<string, string>) {
  const byComment = new Map<string, CommentRepliesTable[]>();
  for (const reply of replies) {
    const list = byComment.get(reply.comment_id);
    if (list) list.push(reply);
    else byComment.set(reply.comment_id, [reply]);
  }
  return comments.map((row) => presentComment(row, byComment.get(row.id), names));
}
