import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireSession } from '../../auth/access.js';
import { errors, RoomParams } from '../../http/schemas.js';
import { noBodyMeansEmpty } from '../../http/request-bodies.js';
import * as S from './rooms.schemas.js';
import type { RoomsService } from './rooms.service.js';

const security = [{ bearer: [] }];
const tags = ['rooms'];
const Success = Type.Object({ success: Type.Boolean() });

export const roomsRoutes: FastifyPluginAsyncTypebox<{ rooms: RoomsService }> = async (app, { rooms }) => {
  app.get('/api/rooms', {
    config: { access: { session: true } },
    schema: { tags, security, summary: "The caller's rooms", response: { 200: S.RoomList, ...errors(401, 403) } },
    handler: async (request) => rooms.listMine(requireSession(request.caller).userId),
  });

  app.post('/api/rooms/:roomId', {
    config: { access: { session: true } },
    preValidation: noBodyMeansEmpty,
    schema: {
      tags,
      security,
      summary: 'Create a room (the caller becomes owner); on an existing room, change nothing',
      description:
        'With SIGNUP other than `open`, or SIGNUP_DOMAINS set, an account whose address is not confirmed yet ' +
        'makes no room: 403 email_not_verified until it follows the link mailed to it. 403 room_limit_reached ' +
        'past MAX_ROOMS_PER_USER.',
      params: RoomParams,
      body: S.CreateRoomBody,
      response: { 200: S.CreateRoomReply, ...errors(400, 401, 403) },
    },
    handler: async (request) => rooms.create(requireSession(request.caller), request.params.roomId, request.body),
  });

  app.get('/api/rooms/:roomId', {
    config: { access: { room: 'read', embed: true } },
    schema: {
      tags,
      security,
      summary: 'Room metadata with counts; members also get userRole and hasAccess',
      params: RoomParams,
      response: { 200: S.MetadataReply, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => rooms.metadata(request.room, request.grant),
  });

  app.get('/api/rooms/:roomId/info', {
    config: { access: { room: 'info', embed: true } },
    schema: {
      tags,
      summary: 'Display settings; private rooms answer requiresAuth: true to non-members',
      params: RoomParams,
      response: { 200: S.InfoReply, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => rooms.info(request.room, request.grant),
  });

  app.patch('/api/rooms/:roomId', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Rename the room or change its description (owner); null clears the description',
      params: RoomParams,
      body: S.RoomDetailsBody,
      response: { 200: S.RoomDetailsReply, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => rooms.updateDetails(request.room, request.caller, request.body),
  });

  app.patch('/api/rooms/:roomId/public', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Make the whole room public or private (owner)',
      params: RoomParams,
      body: S.VisibilityBody,
      response: {
        200: Type.Object({ success: Type.Boolean(), isPublic: Type.Boolean() }),
        ...errors(400, 401, 403, 404),
      },
    },
    handler: async (request) => rooms.setPublic(request.room, request.caller, request.body.isPublic),
  });

  app.patch('/api/rooms/:roomId/presentation/public', {
    config: { access: { room: 'editor' } },
    schema: {
      tags,
      security,
      summary: 'Publish or unpublish the presentation deck (owner or editor)',
      params: RoomParams,
      body: S.VisibilityBody,
      response: {
        200: Type.Object({ success: Type.Boolean(), presentationIsPublic: Type.Boolean() }),
        ...errors(400, 401, 403, 404),
      },
    },
    handler: async (request) => rooms.setPresentationPublic(request.room, request.caller, request.body.isPublic),
  });

  app.patch('/api/rooms/:roomId/camera-settings', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Default view, theme, base layer and auto-zoom (owner); null clears a default',
      params: RoomParams,
      body: S.CameraBody,
      response: { 200: S.CameraReply, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => rooms.updateCamera(request.room, request.caller, request.body),
  });

  app.patch('/api/rooms/:roomId/timeline-settings', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Timeline settings (owner); omitted fields keep their value',
      params: RoomParams,
      body: S.TimelineBody,
      response: { 200: S.TimelineReply, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => rooms.updateTimeline(request.room, request.caller, request.body),
  });

  app.patch('/api/rooms/:roomId/basemaps', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: "Replace the room's own base maps (owner); an empty list clears them",
      description:
        "The whole list replaces the previous one (at most 20). Every member sees them in the map's base-map " +
        'menu: the room answers (`GET /api/rooms/{roomId}`, `/info`) list them as `basemaps`, and a ' +
        '`room.updated` change (`changes: {basemaps}`) brings them to open pages. The browser fetches the ' +
        'tiles, never the service. xyz: `{z}`, `{x}` and `{y}` (or `{-y}`) in `url`; wmts: a RESTful (or KVP) ' +
        'template with `{TileMatrix}`, `{TileRow}` and `{TileCol}` of a GoogleMapsCompatible tile matrix set; ' +
        'wms: the service address and `layers` (the page asks GetMap 1.3.0 in EPSG:3857, 256 px PNG tiles). ' +
        'Answers the list as stored.',
      params: RoomParams,
      body: S.BasemapsBody,
      response: { 200: S.BasemapsReply, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => rooms.setBasemaps(request.room, request.caller, request.body),
  });

  app.get('/api/rooms/:roomId/permissions', {
    config: { access: { room: 'authenticated', embed: true } },
    schema: {
      tags,
      security,
      summary: 'Whether the caller may perform an action in the room',
      params: RoomParams,
      querystring: S.PermissionQuery,
      response: { 200: S.PermissionReply, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => rooms.permission(request.grant, request.query.action),
  });

  app.post('/api/rooms/:roomId/clear', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Remove all content, keep the room, its members and settings (owner)',
      params: RoomParams,
      response: { 200: S.ClearReply, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => rooms.clear(request.room, request.caller),
  });

  app.delete('/api/rooms/:roomId', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Delete the room entirely (owner)',
      params: RoomParams,
      response: { 200: Success, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => rooms.delete(request.room),
  });

  app.put('/api/rooms/:roomId/owner', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Hand the room to a member (owner): they become its owner, the owner an editor',
      description:
        'One write: recorded in history and sent live as two `member.updated` changes (`{userId, role}`), and ' +
        'effective at once on every instance. The target must be a member of the room (404 not_found otherwise: ' +
        'invite them first). Naming oneself changes nothing and records nothing. Answers the room as ' +
        'GET /api/rooms/{roomId} answers it to the caller afterwards (`userRole`: editor). The room must fit ' +
        "the new owner's limits: 403 room_limit_reached past MAX_ROOMS_PER_USER, 413 quota_exceeded past the " +
        'storage quota; then nothing changes.',
      params: RoomParams,
      body: S.OwnerBody,
      response: { 200: S.MetadataReply, ...errors(400, 401, 403, 404, 413) },
    },
    handler: async (request) => rooms.transferOwnership(request.room, request.caller, request.body.userId),
  });
};
