import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import websocket from '@fastify/websocket';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Authenticator } from './auth/authenticator.js';
import { SessionKeys } from './auth/sessions.js';
import type { Config } from './config.js';
import { badRequest } from './errors.js';
import { openDatabase, type Database } from './db/database.js';
import { FileBlobStore } from './infra/blob-store.js';
import { InProcessJobQueue } from './infra/job-queue.js';
import { AccessCache } from './infra/ttl-cache.js';
import { InProcessLiveHub, type LiveHub } from './infra/live-hub.js';
import { HistoryRepository } from './modules/history/history.repository.js';
import { historyRoutes } from './modules/history/history.routes.js';
import { jobsRoutes } from './modules/jobs/jobs.routes.js';
import { liveRoutes } from './modules/live/live.routes.js';
import { LiveService } from './modules/live/live.service.js';
import { BulkImport } from './modules/markers/bulk-import.js';
import { bulkImportRoutes } from './modules/markers/bulk-import.routes.js';
import { StoredFiles } from './modules/files/stored-files.js';
import { WritePath } from './modules/history/write-path.js';
import { RoomTable } from './db/room-table.js';
import { commentsRoutes } from './modules/comments/comments.routes.js';
import { CommentsService } from './modules/comments/comments.service.js';
import { drawingsRoutes } from './modules/drawings/drawings.routes.js';
import { DrawingsService } from './modules/drawings/drawings.service.js';
import { slidesRoutes } from './modules/slides/slides.routes.js';
import { SlidesService } from './modules/slides/slides.service.js';
import { registerAccessHook } from './http/access-hook.js';
import { frameworkErrorHandler, registerErrorHandling } from './http/error-handler.js';
import { registerOpenApi } from './http/openapi.js';
import { loggerOptions } from './http/logging.js';
import { registerValidators } from './http/validation.js';
import { ErrorBody } from './http/schemas.js';
import { MarkerImages } from './modules/markers/marker-images.js';
import { MarkersRepository } from './modules/markers/markers.repository.js';
import { markersRoutes } from './modules/markers/markers.routes.js';
import { MarkersService } from './modules/markers/markers.service.js';
import { MembersRepository } from './modules/members/members.repository.js';
import { membersRoutes } from './modules/members/members.routes.js';
import { MembersService } from './modules/members/members.service.js';
import { RoomContent } from './modules/rooms/room-content.js';
import { RoomsRepository } from './modules/rooms/rooms.repository.js';
import { roomsRoutes } from './modules/rooms/rooms.routes.js';
import { RoomsService } from './modules/rooms/rooms.service.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { IconsRepository } from './modules/icons/icons.repository.js';
import { iconsRoutes } from './modules/icons/icons.routes.js';
import { IconsService } from './modules/icons/icons.service.js';
import { markerImagesRoutes } from './modules/markers/marker-images.routes.js';
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
export interface BuildOptions {
  logStream?: NodeJS.WritableStream;
  /** Replaces the live hub (tests use one that fails, to see 502). */
  liveHub?: LiveHub;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const database = await openDatabase(config);
  const { db } = database;
  const app = Fastify({
    logger: { ...loggerOptions(config), ...(options.logStream && { stream: options.logStream }) },
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Path parameters may be long (e-mail addresses are up to 254 characters, encoded longer).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    frameworkErrors: frameworkErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerValidators(app);
  registerErrorHandling(app);
  parseJsonBodies(app);
  app.addSchema(ErrorBody);
  await registerOpenApi(app);
  await app.register(rateLimit, { global: false });
  // Per-route limits are set where files are read; these are the outer bounds.
  await app.register(multipart, { limits: { fieldSize: 1024 * 1024, fields: 20, files: 4 } });

  const accessCache = new AccessCache();
  const users = new UsersRepository(db);
  const rooms = new RoomsRepository(db, accessCache);
  const members = new MembersRepository(db, accessCache);
  const tokens = new TokensRepository(db, accessCache);
  const content = new RoomContent(db);
  const sessions = new SessionKeys(config);
  const live = options.liveHub ?? new InProcessLiveHub();
  const jobs = new InProcessJobQueue(db, app.log);
  // Stop taking jobs (a running one is left to resume), then live clients, then the database.
  app.addHook('onClose', async () => {
    await jobs.close();
    await live.close();
    await database.close();
  });
  const writePath = new WritePath(db, live);
  const files = new StoredFiles(db, new FileBlobStore(path.join(config.dataDir, 'blobs')), config.storageQuotaBytes);

  const authenticator = new Authenticator(sessions, users, tokens, members);
  registerAccessHook(app, authenticator, rooms);
  refuseNulInUrls(app);

  await app.register(healthRoutes, { database });
  await app.register(usersRoutes, {
    users: new UsersService(users, members, sessions),
    rateLimitPerMinute: config.authRateLimitPerMinute,
  });
  await app.register(roomsRoutes, { rooms: new RoomsService(rooms, members, content, files, writePath) });
  await app.register(membersRoutes, { members: new MembersService(members, users) });
  await app.register(tokensRoutes, { tokens: new TokensService(tokens) });

  const markers = new MarkersRepository(db);
  const markerImages = new MarkerImages(db, files);
  content.register(markers.asContent('markers', (roomId) => files.removeKinds(roomId, ['marker-image', 'marker-thumbnail'])));
  await app.register(markersRoutes, { markers: new MarkersService(markers, markerImages, writePath) });
  await app.register(markerImagesRoutes, { images: markerImages });
  await app.register(iconsRoutes, { icons: new IconsService(new IconsRepository(db), files, writePath) });
  await app.register(bulkImportRoutes, {
    bulkImport: new BulkImport(db, files, jobs, markers, markerImages, writePath),
  });
  await app.register(jobsRoutes, { jobs });

  const drawings = new RoomTable(db, 'drawings');
  const slides = new RoomTable(db, 'slides', 'position');
  const comments = new RoomTable(db, 'comments');
  content.register(drawings.asContent('drawings'));
  content.register(slides.asContent('slides'));
  content.register(comments.asContent('comments'));
  await app.register(drawingsRoutes, { drawings: new DrawingsService(drawings, writePath) });
  await app.register(slidesRoutes, { slides: new SlidesService(slides, markers, drawings, writePath) });
  await app.register(commentsRoutes, {
    comments: new CommentsService(db, comments, new RoomTable(db, 'comment_replies'), writePath),
  });

  const history = new HistoryRepository(db);
  await app.register(historyRoutes, { history });
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(liveRoutes, { live: new LiveService(live, history, rooms, authenticator, accessCache) });

  await app.ready();
  await jobs.start();
  return { app, database };
}

/**
 * JSON is the only body type of these routes (text/plain is refused with 415). An empty JSON
 * body (as some clients send on DELETE) means no body. NUL characters are refused in bodies
 * and URLs alike: no field needs one and PostgreSQL cannot store them.
 */
function parseJsonBodies(app: FastifyInstance) {
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, raw, done) => {
    const text = raw as string;
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, (error, body) => {
      if (error) return done(error);
      if (text.includes('\\u0000') && containsNul(body)) return done(badRequest(NUL_MESSAGE));
      return done(null, body);
    });
  });
}

/** Registered after the access check, so that a bad room id is named first. */
function refuseNulInUrls(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => {
    if (request.url.includes('%00')) throw badRequest(NUL_MESSAGE);
  });
}

const NUL_MESSAGE = 'NUL characters are not accepted';

function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value && typeof value === 'object') {
    return Object.entries(value).some(([key, v]) => key.includes('\0') || containsNul(v));
  }
  return false;
}
