import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireSession } from '../../auth/access.js';
import { errors } from '../../http/schemas.js';
import { LoginBody, Me, Session, SignupBody, User, VerifyEmailBody } from './users.schemas.js';
import type { UsersService } from './users.service.js';
import type { EmailVerification } from './verification.service.js';

export const usersRoutes: FastifyPluginAsyncTypebox<{
  users: UsersService;
  verification: EmailVerification;
  rateLimitPerMinute: number;
  /** Whether the user is an instance admin (InstanceAdmins), for the web app's Admin link. */
  isAdmin: (userId: string) => Promise<boolean>;
}> = async (app, { users, verification, rateLimitPerMinute, isAdmin }) => {
  const rateLimit = { max: rateLimitPerMinute, timeWindow: 60_000 };

  app.post('/api/auth/signup', {
    config: { rateLimit },
    schema: {
      tags: ['accounts'],
      summary: 'Create an account and sign in; a link to confirm the address is e-mailed',
      description:
        'The address accepts invitations once it is confirmed: follow the e-mailed link, whose page posts its ' +
        '`token` to POST /api/auth/verify-email.',
      body: SignupBody,
      response: { 201: Session, ...errors(400, 409, 429) },
    },
    handler: async (request, reply) => reply.status(201).send(await users.signup(request.body)),
  });

  app.post('/api/auth/login', {
    config: { rateLimit },
    schema: {
      tags: ['accounts'],
      summary: 'Sign in with e-mail and password',
      body: LoginBody,
      response: { 200: Session, ...errors(400, 401, 429) },
    },
    handler: async (request) => users.login(request.body),
  });

  app.post('/api/auth/logout', {
    config: { access: { session: true }, rateLimit },
    schema: {
      tags: ['accounts'],
      summary: 'Log out: end this session on every instance',
      description:
        'The session JWT of the request is refused from now on (401 invalid_session), on every instance, ' +
        'until it would have expired. Other sessions of the user stay valid.',
      security: [{ bearer: [] }],
      response: { 204: Type.Null({ description: 'Logged out' }), ...errors(401, 403, 429) },
    },
    handler: async (request, reply) => {
      await users.logout(requireSession(request.caller).session);
      return reply.status(204).send(null);
    },
  });

  app.get('/api/auth/me', {
    config: { access: { session: true } },
    schema: {
      tags: ['accounts'],
      summary: 'The signed-in user',
      security: [{ bearer: [] }],
      response: { 200: Me, ...errors(401, 403) },
    },
    handler: async (request) => {
      const { userId } = requireSession(request.caller);
      const { user } = await users.me(userId);
      return { user: { ...user, admin: await isAdmin(userId) } };
    },
  });

  app.post('/api/auth/verify-email', {
    config: { rateLimit },
    schema: {
      tags: ['accounts'],
      summary: 'Confirm an e-mail address with the token of the e-mailed link',
      description:
        'Single use; a link is valid for 24 hours. Invitations waiting for the address become memberships. ' +
        'An unknown, used or expired token is 400 invalid_token.',
      body: VerifyEmailBody,
      response: { 200: Type.Object({ success: Type.Boolean(), user: User }), ...errors(400, 429) },
    },
    handler: async (request) => verification.verify(request.body.token),
  });

  app.post('/api/auth/resend-verification', {
    config: { access: { session: true }, rateLimit },
    schema: {
      tags: ['accounts'],
      summary: 'E-mail a new confirmation link (at most once a minute)',
      security: [{ bearer: [] }],
      response: { 200: Type.Object({ success: Type.Boolean() }), ...errors(401, 403, 409, 429) },
    },
    handler: async (request) => verification.resend(requireSession(request.caller).userId),
  });
};
