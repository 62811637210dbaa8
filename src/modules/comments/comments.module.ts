import { RoomTable } from '../../db/room-table.js';
import { contentOf } from '../domain/room-content.js';
import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import { commentsExchange, repliesExchange } from './comments.exchange.js';
import { CommentsRepository } from './comments.repository.js';
import { commentRestorables } from './comments.restore.js';
import { commentsRoutes } from './comments.routes.js';
import { CommentsService, type CommentsServiceParts } from './comments.service.js';

/** Comment threads and their replies, on the room's markers, drawings and layers, under their authors' names. */
export function commentsDomain({ db, writePath }: DomainCore, parts: Pick<CommentsServiceParts, 'layers' | 'names'>) {
  const comments = new CommentsRepository(db);
  const replies = new RoomTable(db, 'comment_replies');
  return defineDomain({
    name: 'comments',
    routes: [routes(commentsRoutes, { comments: new CommentsService({ comments, replies, writePath, ...parts }) })],
    exchanges: [commentsExchange(db, comments), repliesExchange(comments, replies)],
    restorables: commentRestorables(comments, replies, parts.names),
    content: [contentOf('comments', comments)],
  });
}
