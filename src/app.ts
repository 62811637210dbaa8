import Fastify, { type FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Authenticator } from './auth/authenticator.js';
import { SessionKeys } from './auth/sessions.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { registerAccessHook } from './http/access-hook.js';
import { registerErrorHandling } from './http/error-handler.js';
import { registerOpenApi } from './http/openapi.js';
import { loggerOptions } from './http/logging.js';
import { registerValidators } from './http/validation.js';
import { ErrorBody } from './http/schemas.js';
import { MembersRepository } from './modules/members/members.repository.js';
import { membersRoutes } from './modules/members/members.routes.js';
import { MembersService } from './modules/members/members.service.js';
import { RoomContent } from './modules/rooms/room-content.js';
import { RoomsRepository } from './modules/rooms/rooms.repository.js';
import { roomsRoutes } from './modules/rooms/rooms.routes.js';
import { RoomsService } from './modules/rooms/rooms.service.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { TokensRepository } from './modules/tokens/tokens.repository.js';
import { tokensRoutes } from './modules/tokens/tokens.routes.js';
import { TokensService } from './modules/tokens/tokens.service.js';
import { UsersRepository } from './modules/users/users.repository.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { UsersService } from './modules/users/users.service.js';

export interface App {
  app: FastifyInstance;
  database: Database;
}

/** Builds the whole service from its configuration; tests call this too. */
export async function buildApp(config: Config, options: { logStream?: NodeJS.WritableStream } = {}): Promise<App> {
  const database = await openDatabase(config);
  const { db } = database;
  const app = Fastify({
    logger: { ...loggerOptions(config), ...(options.logStream && { stream: options.logStream }) },
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onClose', () => database.close());

  registerValidators(app);
  registerErrorHandling(app);
  acceptEmptyJsonBodies(app);
  app.addSchema(ErrorBody);
  await registerOpenApi(app);
  await app.register(rateLimit, { global: false });

  const users = new UsersRepository(db);
  const rooms = new RoomsRepository(db);
  const members = new MembersRepository(db);
  const tokens = new TokensRepository(db);
  const content = new RoomContent(db);
  const sessions = new SessionKeys(config);

  registerAccessHook(app, new Authenticator(sessions, users, tokens, members), rooms);

  await app.register(healthRoutes, { database });
  await app.register(usersRoutes, {
    users: new UsersService(users, members, sessions),
    rateLimitPerMinute: config.authRateLimitPerMinute,
  });
  await app.register(roomsRoutes, { rooms: new RoomsService(rooms, members, content) });
  await app.register(membersRoutes, { members: new MembersService(members, users) });
  await app.register(tokensRoutes, { tokens: new TokensService(tokens) });

  await app.ready();
  return { app, database };
}

/** A JSON request with an empty body (as some clients send on DELETE) has no body. */
function acceptEmptyJsonBodies(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    return parseJson(request, body as string, done);
  });
}
