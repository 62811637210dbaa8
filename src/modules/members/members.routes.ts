import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireSession } from '../../auth/access.js';
import { errors, RoomParams } from '../../http/schemas.js';
import { Invitation, InviteBody, InviteReply, Member, MyInvitation, RoleBody } from './members.schemas.js';
import type { MembersService } from './members.service.js';

const security = [{ bearer: [] }];
const tags = ['members'];
const MemberParams = Type.Object({
  roomId: RoomParams.properties.roomId,
  userId: Type.String({ minLength: 1, maxLength: 255 }),
});

export const membersRoutes: FastifyPluginAsyncTypebox<{ members: MembersService }> = async (app, { members }) => {
  app.get('/api/rooms/:roomId/members', {
    config: { access: { room: 'member' } },
    schema: {
      tags,
      security,
      summary: 'Members of the room (any member)',
      params: RoomParams,
      response: { 200: Type.Array(Member), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => members.list(request.room),
  });

  app.post('/api/rooms/:roomId/invite', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Invite by e-mail (owner): an existing user is added at once, anyone else gets a pending invitation',
      params: RoomParams,
      body: InviteBody,
      response: { 200: InviteReply, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (request) => members.invite(request.room, requireSession(request.caller), request.body),
  });

  app.patch('/api/rooms/:roomId/members/:userId', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: "Change a member's role (owner); the owner's own role never changes",
      description:
        'Effective at once on every instance; recorded in history and sent live as `member.updated` ' +
        '(`{userId, role}`). The same role again answers the member and records nothing.',
      params: MemberParams,
      body: RoleBody,
      response: { 200: Member, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) =>
      members.changeRole(request.room, request.caller, request.params.userId, request.body.role),
  });

  app.delete('/api/rooms/:roomId/members/:userId', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Remove a member (owner); the owner can never be removed',
      params: MemberParams,
      response: { 200: Type.Object({ success: Type.Boolean(), userId: Type.String() }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => members.remove(request.room, request.params.userId),
  });

  app.get('/api/rooms/:roomId/pending-invitations', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Pending invitations of the room (owner)',
      params: RoomParams,
      response: { 200: Type.Object({ invitations: Type.Array(Invitation) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => members.listInvitations(request.room),
  });

  app.delete('/api/rooms/:roomId/pending-invitations/:email', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Revoke a pending invitation (owner)',
      params: Type.Object({
        roomId: RoomParams.properties.roomId,
        email: Type.String({ minLength: 1, maxLength: 254 }),
      }),
      response: { 200: Type.Object({ success: Type.Boolean(), email: Type.String() }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => members.revokeInvitation(request.room, request.params.email),
  });

  app.get('/api/users/pending-invitations', {
    config: { access: { session: true } },
    schema: {
      tags,
      security,
      summary: 'Invitations addressed to the signed-in user',
      response: {
        200: Type.Object({ invitations: Type.Array(MyInvitation) }),
        ...errors(401, 403),
      },
    },
    handler: async (request) => members.invitationsFor(requireSession(request.caller).email),
  });

  app.post('/api/rooms/:roomId/accept-invitation', {
    config: { access: { session: true } },
    schema: {
      tags,
      security,
      summary: 'Accept the invitation to this room addressed to the signed-in user',
      params: RoomParams,
      response: {
        200: Type.Object({ success: Type.Boolean(), roomId: Type.String(), role: Type.String() }),
        ...errors(400, 401, 403, 404),
      },
    },
    handler: async (request) => members.accept(request.params.roomId, requireSession(request.caller)),
  });
};
