import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireSession } from '../../auth/access.js';
import { Email, errors } from '../../http/schemas.js';
import type { UsersService } from './users.service.js';

const User = Type.Object({ id: Type.String(), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]) });
const Session = Type.Object({ token: Type.String({ description: 'Session JWT for `Authorization: Bearer`' }), user: User });
const Password = Type.String({ minLength: 8, maxLength: 1024 });

export const usersRoutes: FastifyPluginAsyncTypebox<{ users: UsersService; rateLimitPerMinute: number }> = async (
  app,
  { users, rateLimitPerMinute },
) => {
  const rateLimit = { max: rateLimitPerMinute, timeWindow: 60_000 };

  app.post('/api/auth/signup', {
    config: { rateLimit },
    schema: {
      tags: ['accounts'],
      summary: 'Create an account and sign in',
      body: Type.Object(
        { email: Email, password: Password, name: Type.Optional(Type.String({ maxLength: 100 })) },
        { additionalProperties: false },
      ),
      response: { 201: Session, ...errors(400, 409, 429) },
    },
    handler: async (request, reply) => reply.status(201).send(await users.signup(request.body)),
  });

  app.post('/api/auth/login', {
    config: { rateLimit },
    schema: {
      tags: ['accounts'],
      summary: 'Sign in with e-mail and password',
      body: Type.Object({ email: Email, password: Type.String({ maxLength: 1024 }) }, { additionalProperties: false }),
      response: { 200: Session, ...errors(400, 401, 429) },
    },
    handler: async (request) => users.login(request.body),
  });

  app.get('/api/auth/me', {
    config: { access: { session: true } },
    schema: {
      tags: ['accounts'],
      summary: 'The signed-in user',
      security: [{ bearer: [] }],
      response: { 200: Type.Object({ user: User }), ...errors(401, 403) },
    },
    handler: async (request) => users.me(requireSession(request.caller).userId),
  });
};
