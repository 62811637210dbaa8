import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireSession } from '../../auth/access.js';
import { errors, RoomParams, roomObjectParams } from '../../http/schemas.js';
import * as S from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const security = [{ bearer: [] }];
const tags = ['webhooks'];
const owner = { access: { room: 'owner' as const } };
const HookParams = roomObjectParams('hookId');

export const webhooksRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  app.post('/api/rooms/:roomId/webhooks', {
    config: owner,
    schema: {
      tags,
      security,
      summary: "Add a webhook: each of the room's changes of its types is POSTed to it, signed (Standard Webhooks)",
      params: RoomParams,
      body: S.NewWebhook,
      response: { 201: S.CreatedWebhook, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (request, reply) =>
      reply.status(201).send(await webhooks.create(request.room, requireSession(request.caller).userId, request.body)),
  });

  app.get('/api/rooms/:roomId/webhooks', {
    config: owner,
    schema: {
      tags,
      security,
      summary: "The room's webhooks, without secrets",
      params: RoomParams,
      response: { 200: Type.Object({ webhooks: Type.Array(S.Webhook) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => webhooks.list(request.room),
  });

  app.patch('/api/rooms/:roomId/webhooks/:hookId', {
    config: owner,
    schema: {
      tags,
      security,
      summary: "Change a webhook's address or types, or enable or disable it",
      params: HookParams,
      body: S.WebhookChanges,
      response: { 200: S.Webhook, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => webhooks.update(request.room, request.params.hookId, request.body),
  });

  app.delete('/api/rooms/:roomId/webhooks/:hookId', {
    config: owner,
    schema: {
      tags,
      security,
      summary: 'Remove a webhook and its delivery log',
      params: HookParams,
      response: { 204: Type.Null({ description: 'Removed' }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      await webhooks.remove(request.room, request.params.hookId);
      return reply.status(204).send(null);
    },
  });

  app.post('/api/rooms/:roomId/webhooks/:hookId/test', {
    config: owner,
    schema: {
      tags,
      security,
      summary: 'Send a `webhook.test` delivery after the changes already queued',
      params: HookParams,
      response: { 202: Type.Object({ deliveryId: Type.String() }), ...errors(400, 401, 403, 404, 409, 429) },
    },
    handler: async (request, reply) => reply.status(202).send(await webhooks.test(request.room, request.params.hookId)),
  });

  app.get('/api/rooms/:roomId/webhooks/:hookId/deliveries', {
    config: owner,
    schema: {
      tags,
      security,
      summary: "The webhook's last 100 deliveries, newest first, each with its last attempt",
      params: HookParams,
      response: { 200: Type.Object({ deliveries: Type.Array(S.Delivery) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => webhooks.deliveries(request.room, request.params.hookId),
  });
};
