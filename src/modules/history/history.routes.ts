import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { seesMemberEmails } from '../../auth/policies.js';
import { errors, RoomParams } from '../../http/schemas.js';
import { noBodyMeansEmpty } from '../../http/request-bodies.js';
import { HistoryEvent, HistoryQuery } from './history.schemas.js';
import type { HistoryService } from './history.service.js';
import { RestoreBody, RestoreParams, RestoreReply } from './restore.schemas.js';
import type { RestoreService } from './restore.service.js';

export const historyRoutes: FastifyPluginAsyncTypebox<{ history: HistoryService; restore: RestoreService }> = async (
  app,
  { history, restore },
) => {
  app.get('/api/rooms/:roomId/history', {
    config: { access: { room: 'read' } },
    schema: {
      tags: ['history'],
      security: [{ bearer: [] }],
      summary: "The room's changes, newest first",
      description: 'Page back with `before` = the smallest `version` of the previous page.',
      params: RoomParams,
      querystring: HistoryQuery,
      response: { 200: Type.Object({ events: Type.Array(HistoryEvent) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) =>
      history.page(
        request.room,
        request.query.limit ?? 50,
        request.query.before,
        seesMemberEmails(request.caller, request.grant),
      ),
  });

  app.post('/api/rooms/:roomId/history/:entryId/restore', {
    config: { access: { room: 'write' } },
    preValidation: noBodyMeansEmpty,
    schema: {
      tags: ['history'],
      security: [{ bearer: [] }],
      summary: 'Put an object back as a history entry kept it (write)',
      description:
        'The object (marker, drawing, comment, reply, slide, vector layer or raster metadata) returns to its state right ' +
        'after the entry; for a `*.deleted` entry, to its state before the delete, with the same id. The restore is a new ' +
        'history entry and live change (`<objectType>.created` when the object came back, `.updated` otherwise) whose ' +
        '`changes` name `restoredFrom`. `notes` say what could not come back (a photo that left storage, an object a slide ' +
        "showed that is gone). `overwrote` is the object's newest entry when later changes were overwritten; with " +
        '`ifLatestVersion` the restore is refused instead (409 `changed_since`) unless the newest entry has that version. ' +
        '409 `not_restorable`: a deleted layer or raster (its features or files left with it), an entry of a room clear, ' +
        'import, settings or slide order, a deletion whose earlier state history does not hold (an imported object), or a ' +
        'reply whose comment is gone.',
      params: RestoreParams,
      body: RestoreBody,
      response: { 200: RestoreReply, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (request) =>
      restore.restore(
        request.room,
        request.caller,
        request.params.entryId,
        request.body.ifLatestVersion,
        seesMemberEmails(request.caller, request.grant),
      ),
  });
};
