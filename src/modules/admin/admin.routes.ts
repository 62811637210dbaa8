import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireSession } from '../../auth/access.js';
import { errors, RoomParams } from '../../http/schemas.js';
import * as S from './admin.schemas.js';
import type { AdminService } from './admin.service.js';

const security = [{ bearer: [] }];
const tags = ['admin'];
const WHO =
  "Session of an instance admin (ADMIN_EMAILS or the identity provider's claim); any other session is 403 forbidden, a room token 403 api_token_not_allowed.";
/** What every admin route declares: the one access rule of the instance admin. */
const config = { access: { admin: true as const } };
const adminId = (request: { caller: Parameters<typeof requireSession>[0] }) => requireSession(request.caller).userId;

export const adminRoutes: FastifyPluginAsyncTypebox<{ admin: AdminService }> = async (app, { admin }) => {
  app.get('/api/admin/users', {
    config,
    schema: {
      tags,
      security,
      summary: 'Users, with the rooms they own and the bytes those store (admin)',
      description: `${WHO} Newest first; \`q\` looks in e-mail addresses and names; deleted accounts are not listed.`,
      querystring: S.ListQuery,
      response: { 200: S.AdminUserList, ...errors(400, 401, 403) },
    },
    handler: async (request) => admin.users(request.query),
  });

  app.post('/api/admin/users/:userId/disable', {
    config,
    schema: {
      tags,
      security,
      summary: 'Disable an account (admin)',
      description:
        `${WHO} Its sessions and the room tokens it created are refused (401) on every instance at once; ` +
        'signing in is 403 account_disabled. Your own account is 409 own_account, another admin 409 admin_account. ' +
        'Written to the audit list.',
      params: S.UserParams,
      response: { 200: S.AdminUser, ...errors(401, 403, 404, 409) },
    },
    handler: async (request) => admin.setDisabled(adminId(request), request.params.userId, true),
  });

  app.post('/api/admin/users/:userId/enable', {
    config,
    schema: {
      tags,
      security,
      summary: 'Enable a disabled account again (admin)',
      description: `${WHO} Its room tokens work again; its sessions from before stay ended. Written to the audit list.`,
      params: S.UserParams,
      response: { 200: S.AdminUser, ...errors(401, 403, 404) },
    },
    handler: async (request) => admin.setDisabled(adminId(request), request.params.userId, false),
  });

  app.delete('/api/admin/users/:userId', {
    config,
    schema: {
      tags,
      security,
      summary: 'Delete an account (admin)',
      description:
        `${WHO} While it owns rooms: 409 owns_rooms with \`details.rooms\` (their ids), unless \`?rooms=delete\`, ` +
        'which deletes them with it. Its history entries and comments keep its name, marked as a deleted account. ' +
        'Your own account is 409 own_account, another admin 409 admin_account. Written to the audit list.',
      params: S.UserParams,
      querystring: S.DeleteUserQuery,
      response: { 204: S.NoContent, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (request, reply) => {
      await admin.deleteUser(adminId(request), request.params.userId, request.query.rooms === 'delete');
      return reply.status(204).send(null);
    },
  });

  app.post('/api/admin/users/:userId/password-reset', {
    config,
    schema: {
      tags,
      security,
      summary: 'Mail the account a password reset link (admin)',
      description:
        `${WHO} The same link as POST /api/auth/password-reset sends. An account of an identity provider has no ` +
        'password: 403 forbidden. Written to the audit list.',
      params: S.UserParams,
      response: { 202: S.Accepted, ...errors(401, 403, 404) },
    },
    handler: async (request, reply) =>
      reply.status(202).send(await admin.sendPasswordReset(adminId(request), request.params.userId)),
  });

  app.get('/api/admin/rooms', {
    config,
    schema: {
      tags,
      security,
      summary: 'Rooms, with owner, members, storage and last change (admin)',
      description: `${WHO} Newest first; \`q\` looks in names and ids.`,
      querystring: S.ListQuery,
      response: { 200: S.AdminRoomList, ...errors(400, 401, 403) },
    },
    handler: async (request) => admin.rooms(request.query),
  });

  app.put('/api/admin/rooms/:roomId/owner', {
    config,
    schema: {
      tags,
      security,
      summary: 'Hand a room to one of its members (admin)',
      description:
        `${WHO} The member becomes owner and the old owner editor, live and in the room's history. ` +
        "A user who is not a member is 404; past the member's MAX_ROOMS_PER_USER 403 room_limit_reached, past " +
        'their storage quota 413 quota_exceeded. Written to the audit list.',
      params: RoomParams,
      body: S.TransferBody,
      response: { 200: S.AdminRoom, ...errors(400, 401, 403, 404, 413) },
    },
    handler: async (request) => admin.transferRoom(adminId(request), request.params.roomId, request.body.userId),
  });

  app.delete('/api/admin/rooms/:roomId', {
    config,
    schema: {
      tags,
      security,
      summary: 'Delete a room with everything in it (admin)',
      description: `${WHO} As its owner would; written to the audit list.`,
      params: RoomParams,
      response: { 204: S.NoContent, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      await admin.deleteRoom(adminId(request), request.params.roomId);
      return reply.status(204).send(null);
    },
  });

  app.get('/api/admin/jobs', {
    config,
    schema: {
      tags,
      security,
      summary: 'Waiting, running and failed jobs of every kind, with their errors (admin)',
      description: `${WHO} Newest first, at most 200 per state.`,
      querystring: S.JobsQuery,
      response: { 200: S.AdminJobList, ...errors(400, 401, 403) },
    },
    handler: async (request) => admin.jobs(request.query.state),
  });

  app.post('/api/admin/jobs/:jobId/retry', {
    config,
    schema: {
      tags,
      security,
      summary: 'Run a failed job again from the start (admin)',
      description: `${WHO} A job that has not failed is 409 job_not_failed; written to the audit list.`,
      params: S.JobParams,
      response: { 200: S.AdminJob, ...errors(401, 403, 404, 409) },
    },
    handler: async (request) => admin.retryJob(adminId(request), request.params.jobId),
  });

  app.post('/api/admin/jobs/:jobId/cancel', {
    config,
    schema: {
      tags,
      security,
      summary: 'Cancel a waiting or running job, its partial work undone (admin)',
      description:
        `${WHO} The job ends as failed ("Cancelled by an administrator"); what it staged is removed as after a crash. ` +
        'A job running on another instance stops within a second. A job that has ended is 409 job_ended; written to the audit list.',
      params: S.JobParams,
      response: { 200: S.AdminJob, ...errors(401, 403, 404, 409) },
    },
    handler: async (request) => admin.cancelJob(adminId(request), request.params.jobId),
  });

  app.get('/api/admin/audit', {
    config,
    schema: {
      tags,
      security,
      summary: "The admins' actions, newest first (admin)",
      description: WHO,
      querystring: S.AuditQuery,
      response: { 200: S.AuditList, ...errors(400, 401, 403) },
    },
    handler: async (request) => admin.audit(request.query),
  });

  app.get('/api/admin/limits', {
    config,
    schema: {
      tags,
      security,
      summary: 'The limits per user (settings) with the largest use (admin)',
      description: WHO,
      response: { 200: S.Limits, ...errors(401, 403) },
    },
    handler: async () => admin.limits(),
  });
};
