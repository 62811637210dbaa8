import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IfLatestVersionQuery, roomObjectParams, RoomParams } from '../../http/schemas.js';
import { noBodyMeansEmpty } from '../../http/request-bodies.js';
import * as S from './drawings.schemas.js';
import type { DrawingsService } from './drawings.service.js';

const security = [{ bearer: [] }];
const tags = ['drawings'];
const Params = roomObjectParams('drawingId');
const DrawingReply = Type.Object({ success: Type.Boolean(), drawing: S.Drawing });

export const drawingsRoutes: FastifyPluginAsyncTypebox<{ drawings: DrawingsService }> = async (app, { drawings }) => {
  app.get('/api/rooms/:roomId/drawings', {
    config: { access: { room: 'read', embed: true } },
    schema: {
      tags,
      security,
      summary: "The room's drawn shapes",
      params: RoomParams,
      response: { 200: Type.Object({ drawings: Type.Array(S.Drawing) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => drawings.list(request.room),
  });

  app.post('/api/rooms/:roomId/drawings', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary: 'Draw a shape: a GeoJSON Point, LineString or Polygon with an optional label and style',
      params: RoomParams,
      body: S.CreateDrawingBody,
      response: { 201: DrawingReply, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request, reply) =>
      reply.status(201).send(await drawings.create(request.room, request.caller, request.body)),
  });

  app.patch('/api/rooms/:roomId/drawings/:drawingId', {
    config: { access: { room: 'write' } },
    preValidation: noBodyMeansEmpty,
    schema: {
      tags,
      security,
      summary: 'Change a shape: omitted fields stay, null clears label or style',
      params: Params,
      body: S.PatchDrawingBody,
      response: { 200: DrawingReply, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request) => drawings.update(request.room, request.caller, request.params.drawingId, request.body),
  });

  app.delete('/api/rooms/:roomId/drawings/:drawingId', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary: 'Delete a shape',
      params: Params,
      querystring: IfLatestVersionQuery,
      response: {
        200: Type.Object({ success: Type.Boolean(), drawingId: Type.String() }),
        ...errors(400, 401, 403, 404, 409, 502),
      },
    },
    handler: async (request) =>
      drawings.delete(request.room, request.caller, request.params.drawingId, request.query.ifLatestVersion),
  });
};
