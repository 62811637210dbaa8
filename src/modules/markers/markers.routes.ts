import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, IfLatestVersionQuery, roomObjectParams, RoomParams } from '../../http/schemas.js';
import * as S from './markers.schemas.js';
import { checkMarkerBody, type MarkersService } from './markers.service.js';

const security = [{ bearer: [] }];
const tags = ['markers'];
const Params = roomObjectParams('markerId');

export const markersRoutes: FastifyPluginAsyncTypebox<{ markers: MarkersService }> = async (app, { markers }) => {
  app.get('/api/rooms/:roomId/markers', {
    config: { access: { room: 'read', embed: true } },
    schema: {
      tags,
      security,
      summary: "The room's markers (anonymous for public rooms)",
      params: RoomParams,
      response: { 200: S.MarkerList, ...errors(400, 401, 403, 404) },
    },
    // The list can hold tens of thousands of markers; the presenter already gives exactly the
    // schema's fields, and JSON.stringify writes them in a third of the time of the schema's
    // serializer (whose nullable fields are checked one by one).
    serializerCompiler: () => JSON.stringify,
    handler: async (request) => markers.list(request.room),
  });

  app.get('/api/rooms/:roomId/markers/feed', {
    config: { access: { room: 'read', embed: true } },
    schema: {
      tags,
      security,
      summary: "The room's markers in columns: what a map draws (anonymous for public rooms)",
      description:
        'Every marker of the room, in the order of `GET /markers`, as columns: `ids`, `latitudes`, `longitudes`, ' +
        '`colors` (indexes into `palette`), `icons` (indexes into `iconIds`) and `iconSizes`; entry i of each column ' +
        'is the marker ids[i]. A page draws the room from it and reads the other fields of a marker with ' +
        '`GET /markers/{markerId}` (or all of them with `GET /markers`).',
      params: RoomParams,
      response: { 200: S.MarkerFeed, ...errors(400, 401, 403, 404) },
    },
    // Like the list: the presenter gives exactly the schema's fields, and tens of thousands of them.
    serializerCompiler: () => JSON.stringify,
    handler: async (request) => markers.feed(request.room),
  });

  app.post('/api/rooms/:roomId/markers', {
    config: { access: { room: 'write' } },
    preValidation: async (request) => checkMarkerBody(request.body, { patch: false }),
    schema: {
      tags,
      security,
      summary: 'Create a marker; only latitude and longitude are required',
      params: RoomParams,
      body: S.CreateMarkerBody,
      response: { 201: S.MarkerReply, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request, reply) =>
      reply.status(201).send(await markers.create(request.room, request.caller, request.body)),
  });

  app.get('/api/rooms/:roomId/markers/:markerId', {
    config: { access: { room: 'read', embed: true } },
    schema: {
      tags,
      security,
      summary: 'One marker (anonymous for public rooms)',
      params: Params,
      response: { 200: S.MarkerReply, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => markers.get(request.room, request.params.markerId),
  });

  app.patch('/api/rooms/:roomId/markers/:markerId', {
    config: { access: { room: 'write' } },
    preValidation: async (request) => checkMarkerBody(request.body, { patch: true }),
    schema: {
      tags,
      security,
      summary: 'Change a marker: omitted fields stay, null clears, "" stores an empty string',
      description:
        'latitude, longitude, title and color cannot be cleared. imageKey and thumbnailKey go together; both null removes the image. ' +
        'Errors: 400 empty_update, 400 unknown_field:<key>. A caller with write but not read gets back only the fields it sent.',
      params: Params,
      body: S.PatchMarkerBody,
      response: { 200: S.MarkerReply, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request) => markers.update(request.room, request.caller, request.params.markerId, request.body),
  });

  app.delete('/api/rooms/:roomId/markers/:markerId', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary: 'Delete a marker; its images go unless another marker uses them',
      params: Params,
      querystring: IfLatestVersionQuery,
      response: { 200: S.DeleteReply, ...errors(400, 401, 403, 404, 409, 502) },
    },
    handler: async (request) =>
      markers.delete(request.room, request.caller, request.params.markerId, request.query.ifLatestVersion),
  });
};
