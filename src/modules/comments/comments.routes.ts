import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IfLatestVersionQuery, RoomId, roomObjectParams, RoomParams } from '../../http/schemas.js';
import * as S from './comments.schemas.js';
import type { CommentsService } from './comments.service.js';

const security = [{ bearer: [] }];
const tags = ['comments'];
const CommentParams = roomObjectParams('commentId');
const ReplyParams = Type.Object({
  roomId: RoomId,
  commentId: Type.String({ minLength: 1, maxLength: 100 }),
  replyId: Type.String({ minLength: 1, maxLength: 100 }),
});
const CommentReply = Type.Object({ success: Type.Boolean(), comment: S.Comment });

export const commentsRoutes: FastifyPluginAsyncTypebox<{ comments: CommentsService }> = async (app, { comments }) => {
  app.get('/api/rooms/:roomId/comments', {
    config: { access: { room: 'read' } },
    schema: {
      tags,
      security,
      summary: 'Comments with their replies, oldest first, optionally filtered',
      params: RoomParams,
      querystring: S.CommentQuery,
      response: { 200: Type.Object({ comments: Type.Array(S.Comment) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => comments.list(request.room, request.query),
  });

  app.post('/api/rooms/:roomId/comments', {
    config: { access: { room: 'comment' } },
    schema: {
      tags,
      security,
      summary: 'Comment on a marker, layer or drawing (viewers too; tokens need write)',
      params: RoomParams,
      body: S.CreateCommentBody,
      response: { 201: CommentReply, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request, reply) =>
      reply.status(201).send(await comments.create(request.room, request.caller, request.body)),
  });

  app.post('/api/rooms/:roomId/comments/:commentId/replies', {
    config: { access: { room: 'comment' } },
    schema: {
      tags,
      security,
      summary: 'Reply to a comment',
      params: CommentParams,
      body: S.ReplyBody,
      response: { 201: Type.Object({ success: Type.Boolean(), reply: S.Reply }), ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request, reply) =>
      reply
        .status(201)
        .send(await comments.reply(request.room, request.caller, request.params.commentId, request.body.body)),
  });

  app.patch('/api/rooms/:roomId/comments/:commentId', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary: 'Resolve or reopen a comment (write permission)',
      params: CommentParams,
      body: S.ResolveBody,
      response: { 200: CommentReply, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request) =>
      comments.resolve(request.room, request.caller, request.params.commentId, request.body.resolved),
  });

  app.delete('/api/rooms/:roomId/comments/:commentId', {
    config: { access: { room: 'comment' } },
    schema: {
      tags,
      security,
      summary: 'Delete a comment and its replies',
      description: 'A room token, or a viewer, may delete only comments it wrote; owners and editors any.',
      params: CommentParams,
      querystring: IfLatestVersionQuery,
      response: {
        200: Type.Object({ success: Type.Boolean(), commentId: Type.String() }),
        ...errors(400, 401, 403, 404, 409, 502),
      },
    },
    handler: async (request) =>
      comments.deleteComment(
        request.room,
        request.caller,
        request.grant,
        request.params.commentId,
        request.query.ifLatestVersion,
      ),
  });

  app.delete('/api/rooms/:roomId/comments/:commentId/replies/:replyId', {
    config: { access: { room: 'comment' } },
    schema: {
      tags,
      security,
      summary: 'Delete a reply',
      description: 'A room token, or a viewer, may delete only replies it wrote; owners and editors any.',
      params: ReplyParams,
      querystring: IfLatestVersionQuery,
      response: {
        200: Type.Object({ success: Type.Boolean(), replyId: Type.String() }),
        ...errors(400, 401, 403, 404, 409, 502),
      },
    },
    handler: async (request) =>
      comments.deleteReply(
        request.room,
        request.caller,
        request.grant,
        request.params.commentId,
        request.params.replyId,
        request.query.ifLatestVersion,
      ),
  });
};
