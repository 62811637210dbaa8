import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IfLatestVersionQuery, roomObjectParams, RoomParams } from '../../http/schemas.js';
import { noBodyMeansEmpty } from '../../http/request-bodies.js';
import { Drawing } from '../drawings/drawings.schemas.js';
import { Marker } from '../markers/markers.schemas.js';
import { RasterLayer } from '../rasters/rasters.schemas.js';
import * as S from './slides.schemas.js';
import type { SlidesService } from './slides.service.js';

const security = [{ bearer: [] }];
const tags = ['presentation'];
const Params = roomObjectParams('slideId');
const SlideReply = Type.Object({ success: Type.Boolean(), slide: S.Slide });
const SlideList = Type.Object({ slides: Type.Array(S.Slide) });

export const slidesRoutes: FastifyPluginAsyncTypebox<{ slides: SlidesService }> = async (app, { slides }) => {
  app.get('/api/rooms/:roomId/presentation', {
    config: { access: { room: 'deck', embed: true } },
    schema: {
      tags,
      security,
      summary: 'The presentation: the slides and only the objects they show',
      description:
        'Anyone may read it when the deck is public, even in a private room; otherwise it needs read on the room.',
      params: RoomParams,
      response: {
        200: Type.Object({
          slides: Type.Array(S.Slide),
          markers: Type.Array(Marker),
          layers: Type.Array(Type.Unknown()),
          rasterLayers: Type.Array(RasterLayer),
          drawings: Type.Array(Drawing),
        }),
        ...errors(400, 401, 403, 404),
      },
    },
    handler: async (request) => slides.presentation(request.room),
  });

  app.get('/api/rooms/:roomId/presentation/slides', {
    config: { access: { room: 'read', embed: true } },
    schema: {
      tags,
      security,
      summary: 'The slides, in deck order',
      params: RoomParams,
      response: { 200: SlideList, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => slides.list(request.room),
  });

  app.post('/api/rooms/:roomId/presentation/slides', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary: 'Add a slide at the end of the deck',
      params: RoomParams,
      body: S.CreateSlideBody,
      response: { 201: SlideReply, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request, reply) =>
      reply.status(201).send(await slides.create(request.room, request.caller, request.body)),
  });

  app.put('/api/rooms/:roomId/presentation/slides/order', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary: 'Reorder the deck: slideIds names every slide once, in the new order',
      params: RoomParams,
      body: S.OrderBody,
      response: {
        200: Type.Object({ success: Type.Boolean(), slides: Type.Array(S.Slide) }),
        ...errors(400, 401, 403, 404, 502),
      },
    },
    handler: async (request) => slides.reorder(request.room, request.caller, request.body.slideIds),
  });

  app.patch('/api/rooms/:roomId/presentation/slides/:slideId', {
    config: { access: { room: 'write' } },
    preValidation: noBodyMeansEmpty,
    schema: {
      tags,
      security,
      summary: 'Change a slide: omitted fields stay',
      params: Params,
      body: S.PatchSlideBody,
      response: { 200: SlideReply, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request) => slides.update(request.room, request.caller, request.params.slideId, request.body),
  });

  app.delete('/api/rooms/:roomId/presentation/slides/:slideId', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary: 'Delete a slide; the others close the gap',
      params: Params,
      querystring: IfLatestVersionQuery,
      response: {
        200: Type.Object({ success: Type.Boolean(), slideId: Type.String() }),
        ...errors(400, 401, 403, 404, 409, 502),
      },
    },
    handler: async (request) =>
      slides.delete(request.room, request.caller, request.params.slideId, request.query.ifLatestVersion),
  });
};
