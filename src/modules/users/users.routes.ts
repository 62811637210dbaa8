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
        '`token` to POST /api/auth/verify-email. 403 signup_closed when the sign-up policy (SIGNUP, SIGNUP_DOMAINS) ' +
        'refuses the address, with a message saying why; 403 local_accounts_off with LOCAL_ACCOUNTS=off.',
      body: SignupBody,
      response: { 201: Session, ...errors(400, 403, 409, 429) },
    },
    handler: async (request, reply) => reply.status(201).send(await users.signup(request.body)),
  });

  app.post('/api/auth/login', {
    config: { rateLimit },
    schema: {
      tags: ['accounts'],
      summary: 'Sign in with e-mail and password',
      description:
        'A wrong address or password, or a deleted account, is 401 invalid_credentials; a disabled account whose ' +
        'password is right is 403 account_disabled; 403 local_accounts_off with LOCAL_ACCOUNTS=off.',
      body: LoginBody,
      response: { 200: Session, ...errors(400, 401, 403, 429) },
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

  app.post('/api/auth/session', {
    config: { access: { session: true }, rateLimit },
    schema: {
      tags: ['accounts'],
      summary: 'Renew the session: a new JWT of the same session with a full lifetime',
      description:
        'The web app calls this while the person uses it (e.g. when half of the lifetime has passed and they act), ' +
        'so that an active person is never signed out while an idle page still expires. The new JWT is the same ' +
        'session (logging out with either ends both). A revoked, expired or cut-off session, or a disabled or ' +
        'deleted account, is 401; a session of an external provider (AUTH_JWKS_URL) is 403, and so is one signed in ' +
        'more than SESSION_MAX_AGE_SECONDS ago (403 session_max_age: it is not renewed and expires). The new JWT ' +
        'keeps the time of the sign-in (`auth_ms`): renewing never makes a sign-in fresh.',
      security: [{ bearer: [] }],
      response: { 200: Session, ...errors(401, 403, 429) },
    },
    handler: async (request) => users.renew(requireSession(request.caller)),
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
        'The link of an address change (POST /api/auth/email) moves the account to the new address, verified ' +
        '(409 email_taken when another account took it meanwhile). ' +
        'An unknown, used or expired token is 400 invalid_token.',
      body: VerifyEmailBody,
      response: { 200: Type.Object({ success: Type.Boolean(), user: User }), ...errors(400, 409, 429) },
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
