import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type AccessChange, CachedAccess } from './auth/access-source.js';
import { InstanceAdmins } from './auth/admins.js';
import { Authenticator, LAST_USED_PRECISION_MS } from './auth/authenticator.js';
import { PasswordHasher } from './auth/passwords.js';
import { SessionKeys } from './auth/sessions.js';
import {
  geoLimitsOf,
  listSetting,
  oidcProvidersOf,
  publicUrlOf,
  rasterCacheSizesOf,
  sqlitePathOf,
  tmpDirOf,
  type Config,
} from './config.js';
import { TileableFiles } from './geo-engine/raster-reader.js';
import { RasterTiles } from './geo-engine/raster-tiles.js';
import { RasterPoints } from './geo-engine/raster-point.js';
import { TtlCache } from './infra/ttl-cache.js';
import { openDatabase, type Database, type Db } from './db/database.js';
import { RoomTable } from './db/room-table.js';
import { StagedJobs } from './db/staged-jobs.js';
import { registerAccessHook } from './http/access-hook.js';
import { serveOnlyProbes } from './http/instance-role.js';
import { frameworkErrorHandler, registerErrorHandling } from './http/error-handler.js';
import { loggerOptions, requestLogger } from './http/logging.js';
import { registerOpenApi } from './http/openapi.js';
import { registerRateLimits } from './http/rate-limits.js';
import { parseJsonBodies, refuseNulInUrls } from './http/request-bodies.js';
import { ErrorBody } from './http/schemas.js';
import { acceptMultipart, UploadReceiver } from './http/uploads.js';
import { registerValidators } from './http/validation.js';
import { registerOfflineBasemap } from './http/offline-basemap.js';
import { registerWebApp } from './http/web-app.js';
import { registerWriteOnlyAnswers } from './http/write-only-answers.js';
import { type BlobStore, FileBlobStore } from './infra/blob-store.js';
import { redisProbe } from './infra/redis-probe.js';
import { S3BlobStore, s3ClientFor } from './infra/s3-blob-store.js';
import { InProcessLiveHub, type LiveHub } from './infra/live-hub.js';
import { RedisBroadcast } from './infra/redis-broadcast.js';
import { RedisLiveHub } from './infra/redis-live-hub.js';
import { InProcessPresence } from './infra/presence.js';
import { RedisPresence } from './infra/redis-presence.js';
import { type PresenceNotice, RoomPresence } from './modules/live/room-presence.js';
import { ActorNames } from './modules/users/actor-names.js';
import { LogMailer, Outbox, SmtpMailer, type Mailer } from './infra/mailer.js';
import { AdminListsRepository } from './modules/admin/admin-lists.repository.js';
import { adminRoutes } from './modules/admin/admin.routes.js';
import { AdminService } from './modules/admin/admin.service.js';
import { AuditRepository } from './modules/admin/audit.repository.js';
import { commentsExchange, repliesExchange } from './modules/comments/comments.exchange.js';
import { jobSystemOf, registerJobKinds, scheduleSweeps, undoInterruptedStaging } from './jobs.js';
import { commentsRoutes } from './modules/comments/comments.routes.js';
import { CommentsRepository } from './modules/comments/comments.repository.js';
import { CommentsService } from './modules/comments/comments.service.js';
import { drawingsExchange } from './modules/drawings/drawings.exchange.js';
import type { Exchange } from './modules/exchange/exchange.js';
import { DrawingsRepository } from './modules/drawings/drawings.repository.js';
import { drawingsRoutes } from './modules/drawings/drawings.routes.js';
import { DrawingsService } from './modules/drawings/drawings.service.js';
import { StoredFiles } from './modules/files/stored-files.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { HistoryRepository } from './modules/history/history.repository.js';
import { historyRoutes } from './modules/history/history.routes.js';
import { HistoryService } from './modules/history/history.service.js';
import { WritePath } from './modules/history/write-path.js';
import { RestoreService } from './modules/history/restore.service.js';
import { snapshotRoutes } from './modules/snapshot/snapshot.routes.js';
import { SnapshotService } from './modules/snapshot/snapshot.service.js';
import { markerRestorable } from './modules/markers/markers.restore.js';
import { drawingRestorable } from './modules/drawings/drawings.restore.js';
import { commentRestorables } from './modules/comments/comments.restore.js';
import { slideRestorable } from './modules/slides/slides.restore.js';
import { layerRestorable } from './modules/layers/layers.restore.js';
import { rasterRestorable } from './modules/rasters/rasters.restore.js';
import { iconsExchange } from './modules/icons/icons.exchange.js';
import { IconsRepository } from './modules/icons/icons.repository.js';
import { iconsRoutes } from './modules/icons/icons.routes.js';
import { IconsService } from './modules/icons/icons.service.js';
import { jobsRoutes } from './modules/jobs/jobs.routes.js';
import { ExportJobsRepository } from './modules/exports/export-jobs.repository.js';
import { exportsRoutes } from './modules/exports/exports.routes.js';
import { ExportsService } from './modules/exports/exports.service.js';
import { RoomClones } from './modules/exports/room-clones.js';
import { RoomExporter } from './modules/exports/room-export.js';
import { RoomImport } from './modules/exports/room-import.js';
import { ChunkedUploads } from './modules/ingest/chunked-uploads.js';
import { chunkedUploadsRoutes } from './modules/ingest/chunked-uploads.routes.js';
import { Ingest } from './modules/ingest/ingest.js';
import { UploadChunksRepository } from './modules/ingest/upload-chunks.repository.js';
import { Uploads } from './modules/ingest/uploads.js';
import { uploadsRoutes } from './modules/ingest/uploads.routes.js';
import { FeatureTablesRepository } from './modules/layers/feature-tables.js';
import { layerContent } from './modules/layers/layer-content.js';
import { LayerIngest } from './modules/layers/layer-ingest.js';
import { layersExchange, vectorLayers } from './modules/layers/layers.exchange.js';
import { LayersRepository } from './modules/layers/layers.repository.js';
import { FeatureAttributesRepository } from './modules/layers/feature-attributes.js';
import { LayerAttributes } from './modules/layers/layer-attributes.js';
import { layersRoutes } from './modules/layers/layers.routes.js';
import { styleCheck } from './modules/layers/layers.schemas.js';
import { LayersService } from './modules/layers/layers.service.js';
import { PointImport } from './modules/layers/point-import.js';
import { liveRoutes } from './modules/live/live.routes.js';
import { ogcRoutes } from './modules/ogc/ogc.routes.js';
import { OgcService } from './modules/ogc/ogc.service.js';
import { rasterLayers } from './modules/rasters/rasters.exchange.js';
import { rasterContent } from './modules/rasters/raster-content.js';
import { RasterIngest } from './modules/rasters/raster-ingest.js';
import { RastersRepository } from './modules/rasters/rasters.repository.js';
import { rastersRoutes } from './modules/rasters/rasters.routes.js';
import { RastersService } from './modules/rasters/rasters.service.js';
import { LiveService } from './modules/live/live.service.js';
import { BulkImport } from './modules/markers/bulk-import.js';
import { bulkImportRoutes } from './modules/markers/bulk-import.routes.js';
import { MarkerImages } from './modules/markers/marker-images.js';
import { markerImagesRoutes } from './modules/markers/marker-images.routes.js';
import { markerPhotosExchange, markersExchange } from './modules/markers/markers.exchange.js';
import { MarkersRepository } from './modules/markers/markers.repository.js';
import { markersRoutes } from './modules/markers/markers.routes.js';
import { MarkersService } from './modules/markers/markers.service.js';
import { MembersRepository } from './modules/members/members.repository.js';
import { membersRoutes } from './modules/members/members.routes.js';
import { MembersService } from './modules/members/members.service.js';
import { contentOf, RoomContent } from './modules/rooms/room-content.js';
import { roomExchange } from './modules/rooms/rooms.exchange.js';
import { RoomsRepository } from './modules/rooms/rooms.repository.js';
import { roomsRoutes } from './modules/rooms/rooms.routes.js';
import { RoomsService } from './modules/rooms/rooms.service.js';
import { slidesExchange } from './modules/slides/slides.exchange.js';
import { SlidesRepository } from './modules/slides/slides.repository.js';
import { slidesRoutes } from './modules/slides/slides.routes.js';
import { SlidesService } from './modules/slides/slides.service.js';
import { TokensRepository } from './modules/tokens/tokens.repository.js';
import { tokensRoutes } from './modules/tokens/tokens.routes.js';
import { TokensService } from './modules/tokens/tokens.service.js';
import { RevokedSessionsRepository } from './modules/users/revoked-sessions.repository.js';
import { AccountHolders } from './modules/users/account-holders.js';
import { ProviderAccountsRepository, UsersRepository } from './modules/users/users.repository.js';
import { SignupPolicy } from './modules/users/signup-policy.js';
import { IdentitiesRepository } from './modules/oidc/identities.repository.js';
import { OidcAccounts } from './modules/oidc/oidc-accounts.js';
import { OidcClients } from './modules/oidc/oidc-clients.js';
import { OidcFlowsRepository } from './modules/oidc/oidc-flows.repository.js';
import { oidcRoutes } from './modules/oidc/oidc.routes.js';
import { OidcSignIn, type OidcSignInParts } from './modules/oidc/oidc.service.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { Geocoder } from './modules/search/geocoder.js';
import { searchRoutes } from './modules/search/search.routes.js';
import { SearchService } from './modules/search/search.service.js';
import { UsersService } from './modules/users/users.service.js';
import { accountRoutes } from './modules/users/account.routes.js';
import { AccountChanges } from './modules/users/account-changes.service.js';
import { PasswordReset } from './modules/users/password-reset.service.js';
import { PasswordResetsRepository } from './modules/users/password-resets.repository.js';
import { EmailVerification } from './modules/users/verification.service.js';

export interface App {
  app: FastifyInstance;
  database: Database;
  /** The account services that admin actions call (and tests, for states no public route reaches). */
  accounts: { users: UsersService; passwordReset: PasswordReset; members: MembersService };
}

/** Builds the whole service from its configuration; tests call this too. */
export interface BuildOptions {
  logStream?: NodeJS.WritableStream;
  /** Replaces the live hub (tests use one that fails, to see 502). */
  liveHub?: LiveHub;
  /** Replaces the mailer (tests use a real SMTP server through SMTP_URL, or read the log). */
  mailer?: Mailer;
  /** Jobs run at once (1; tests use 0 to see what a job waiting in the queue holds). */
  jobWorkers?: number;
  /** Wraps the blob store (tests count what is read through it). */
  wrapBlobStore?: (store: BlobStore) => BlobStore;
}

/** Fastify with the service's plumbing: validation, errors, body parsing, OpenAPI, plugins. */
async function createServer(config: Config, options: BuildOptions) {
  const app = Fastify({
    logger: { ...loggerOptions(config), ...(options.logStream && { stream: options.logStream }) },
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // Path parameters may be long (e-mail addresses are up to 254 characters, encoded longer).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    frameworkErrors: frameworkErrorHandler,
    childLoggerFactory: requestLogger,
  }).withTypeProvider<TypeBoxTypeProvider>();
  registerValidators(app);
  registerErrorHandling(app);
  parseJsonBodies(app);
  app.addSchema(ErrorBody);
  await registerOpenApi(app);
  await registerRateLimits(app, config);
  acceptMultipart(app);
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  return app;
}

/**
 * What a room export holds: each domain's exchange (its table of the file and how a row is
 * restored), in the file's order. The import restores them in the order of their references.
 */
export function roomExchanges(db: Db, files: Pick<StoredFiles, 'listKinds'>): Exchange[] {
  const comments = new CommentsRepository(db);
  return [
    roomExchange(new RoomsRepository(db)),
    layersExchange(new LayersRepository(db), [vectorLayers, rasterLayers]),
    commentsExchange(db, comments),
    repliesExchange(comments, new RoomTable(db, 'comment_replies')),
    slidesExchange(new SlidesRepository(db)),
    iconsExchange(new IconsRepository(db)),
    markerPhotosExchange(files),
    markersExchange(db, new MarkersRepository(db)),
    drawingsExchange(db, new RoomTable(db, 'drawings')),
  ];
}

/** Where files live: the S3 bucket when S3_BUCKET is set, else DATA_DIR/blobs. */
function blobStoreOf(config: Config): BlobStore {
  if (!config.s3Bucket) return new FileBlobStore(path.join(config.dataDir, 'blobs'));
  const location = {
    bucket: config.s3Bucket,
    endpoint: config.s3Endpoint,
    region: config.s3Region,
    forcePathStyle: config.s3ForcePathStyle,
    tmpDir: tmpDirOf(config),
  };
  return new S3BlobStore(s3ClientFor(location), location);
}

/** Sign-in with the identity providers of the settings (none: the routes list none and answer 404). */
function oidcSignInOf(
  config: Config,
  parts: Pick<OidcSignInParts, 'sessions' | 'invitations' | 'publicUrl' | 'log'> & {
    db: Db;
    holders: AccountHolders;
    users: UsersRepository;
    members: MembersRepository;
  },
) {
  const { db, members, holders, ...rest } = parts;
  const { users } = parts;
  const clients = new OidcClients(oidcProvidersOf(config), parts.log, config.oidcDiscoveryTimeoutSeconds);
  const accounts = new OidcAccounts({
    users,
    providerAccounts: new ProviderAccountsRepository(db),
    holders,
    identities: new IdentitiesRepository(db),
    policy: new SignupPolicy(config, members),
  });
  const signIn = new OidcSignIn({
    ...rest,
    clients,
    flows: new OidcFlowsRepository(db),
    accounts,
    flowSeconds: config.oidcFlowSeconds,
  });
  return { signIn, clients };
}

/**
 * The composition root: infrastructure first, then each domain's repository, service and
 * routes. Services receive what they use; nothing reaches for a global.
 */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const database = await openDatabase(config);
  const { db } = database;
  const app = await createServer(config, options);
  if (config.instanceRole === 'jobs') serveOnlyProbes(app);
  database.onLockLost((error) =>
    app.log.fatal(
      { err: error },
      'lost the PostgreSQL lock of this instance: restart it (GET /api/health answers 503)',
    ),
  );

  const live =
    options.liveHub ?? (config.redisUrl ? await RedisLiveHub.open(config.redisUrl, app.log) : new InProcessLiveHub());
  const { jobs, sweeps, runsJobs } = jobSystemOf(config, db, app.log, options.jobWorkers ?? 1);
  const redis = config.redisUrl ? redisProbe(config.redisUrl) : null;
  const outbox = new Outbox(
    options.mailer ?? (config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : new LogMailer(app.log)),
    app.log,
  );
  const publicUrl = publicUrlOf(config);
  // Stop taking jobs (a running one is left to resume) and sweeping, then live clients and mail, then the database.
  app.addHook('onClose', async () => {
    // Each part closes even when another cannot (Redis gone while stopping); the database always, last.
    const parts: [string, () => unknown][] = [
      ['jobs', () => jobs.close()],
      ['sweeps', () => sweeps.close()],
      ['live', () => live.close()],
      ['mail', () => outbox.close()],
      ['redis probe', () => redis?.close()],
    ];
    for (const [name, close] of parts) {
      try {
        await close();
      } catch (error) {
        app.log.warn({ err: error }, `closing ${name} failed`);
      }
    }
    await database.close();
  });
  const writePath = new WritePath(db, live);
  const stored = blobStoreOf(config);
  const blobs = options.wrapBlobStore?.(stored) ?? stored;
  const uploads = new UploadReceiver(tmpDirOf(config));
  // What a crash left half-written or half-received.
  await Promise.all([blobs.clean(), uploads.clean()]);
  const files = new StoredFiles(db, blobs, config.storageQuotaBytes);
  const staged = new StagedJobs(db, database.instances);
  const content = new RoomContent(db);

  // Accounts, rooms, members, tokens and the one access check.
  const users = new UsersRepository(db);
  const rooms = new RoomsRepository(db);
  const members = new MembersRepository(db);
  const tokens = new TokensRepository(db);
  const slides = new SlidesRepository(db);
  const revokedSessions = new RevokedSessionsRepository(db);
  const actorNames = new ActorNames(users, tokens);
  // With Redis, each instance tells the others what it changed (`others`).
  const accessChanges = config.redisUrl
    ? await RedisBroadcast.open<AccessChange>(config.redisUrl, 'access-changes', app.log)
    : undefined;
  if (accessChanges) app.addHook('onClose', () => accessChanges.close());
  const access = new CachedAccess(
    {
      roomWithRole: (roomId, userId) => rooms.findWithRole(roomId, userId),
      tokenByHash: (hash) => tokens.findByHash(hash),
      userById: (id) => users.findById(id),
      shownByDeck: (roomId, object) => slides.isShown(roomId, object),
      sessionRevoked: (sessionId) => revokedSessions.isRevoked(sessionId),
    },
    config.accessCacheTtlMs,
    accessChanges,
  );
  const sessions = new SessionKeys(config);
  const holders = new AccountHolders(users, access);
  const membersService = new MembersService({
    members,
    users,
    access,
    outbox,
    publicUrl,
    writePath,
    ownerLimits: {
      maxRoomsPerUser: config.maxRoomsPerUser,
      assertRoomFor: (roomId, bytes, db) => files.assertRoomFor(roomId, bytes, db),
    },
  });
  const verification = new EmailVerification(users, outbox, membersService, {
    publicUrl,
    resendIntervalMs: config.verificationResendSeconds * 1000,
  });
  const passwords = new PasswordHasher(config.passwordHashCost);
  const roomsService = new RoomsService({
    rooms,
    members,
    content,
    files,
    writePath,
    access,
    owners: membersService,
    maxRoomsPerUser: config.maxRoomsPerUser,
    verifiedToCreate: config.signup !== 'open' || listSetting(config.signupDomains).length > 0,
  });
  const usersService = new UsersService({
    users,
    invitations: membersService,
    sessions,
    passwords,
    proof: verification,
    revokedSessions,
    access,
    policy: new SignupPolicy(config, members),
    rooms: {
      owned: (userId) => members.ownedBy(userId),
      deleteRoom: async (roomId) => {
        const room = await rooms.find(roomId);
        if (room) await roomsService.delete(room);
      },
      leaveAll: (userId) => members.removeAllOf(userId),
    },
    holders,
    config,
  });
  const passwordReset = new PasswordReset({
    users,
    resets: new PasswordResetsRepository(db),
    passwords,
    outbox,
    invitations: membersService,
    publicUrl,
    config,
    holders,
  });
  const tokensService = new TokensService(tokens, access);
  const authenticator = new Authenticator(sessions, access, {
    tokenUsed: (tokenId, at) => tokensService.recordUse(tokenId, at),
    userSeen: (userId, at) => users.touchSeen(userId, at, LAST_USED_PRECISION_MS),
    externalSignIn: (claims) => usersService.externalSignIn(claims),
  });
  const admins = new InstanceAdmins(config);
  registerAccessHook(app, authenticator, access, admins);
  registerWriteOnlyAnswers(app);
  refuseNulInUrls(app);

  await app.register(healthRoutes, {
    database,
    readiness: {
      redis: redis?.ping ?? null,
      objectStore: async () => blobs.ping?.(),
      timeoutMs: config.readyCheckTimeoutMs,
    },
  });
  await registerWebApp(app, config);
  await registerOfflineBasemap(app);
  await app.register(usersRoutes, {
    users: usersService,
    isAdmin: async (userId: string) => {
      const user = await users.findById(userId);
      return user !== undefined && admins.isAdmin(user);
    },
    verification,
    rateLimitPerMinute: config.authRateLimitPerMinute,
  });
  await app.register(accountRoutes, {
    users: usersService,
    reset: passwordReset,
    changes: new AccountChanges(users, passwords, verification, holders),
    rateLimitPerMinute: config.authRateLimitPerMinute,
  });
  const oidc = oidcSignInOf(config, {
    db,
    holders,
    users,
    members,
    sessions,
    invitations: membersService,
    publicUrl,
    log: app.log,
  });
  await app.register(oidcRoutes, {
    ...oidc,
    options: { localAccounts: config.localAccounts === 'on', signup: config.signup },
    rateLimitPerMinute: config.authRateLimitPerMinute,
  });
  await app.register(roomsRoutes, { rooms: roomsService });
  await app.register(membersRoutes, { members: membersService });
  await app.register(tokensRoutes, { tokens: tokensService });

  // Markers, their photos and icons, bulk import.
  const markers = new MarkersRepository(db);
  const icons = new IconsRepository(db);
  const markerImages = new MarkerImages(markers, files);
  content.register(
    contentOf('markers', markers, (roomId) => files.removeKinds(roomId, ['marker-image', 'marker-thumbnail'])),
  );
  await app.register(markersRoutes, { markers: new MarkersService(markers, icons, markerImages, writePath) });
  await app.register(markerImagesRoutes, { images: markerImages, uploads });
  await app.register(iconsRoutes, { icons: new IconsService(icons, files, writePath), uploads });
  const bulkImport = new BulkImport({ db, files, jobs, staged, markers, icons, images: markerImages, writePath });
  await app.register(bulkImportRoutes, { bulkImport, uploads });
  await app.register(jobsRoutes, { jobs });

  // Vector layers, rasters, and the one ingest of uploaded files (chunked too) both use.
  // The geo engine's limits and raster caches, sized by the configuration.
  const geo = geoLimitsOf(config);
  const rasterCaches = rasterCacheSizesOf(config);
  const rasterTiles = new RasterTiles(new TileableFiles(rasterCaches), rasterCaches);
  const layers = new LayersRepository(db);
  const rasters = new RastersRepository(db);
  const featureTables = new FeatureTablesRepository(db, database.dialect);
  const ingestDatabase =
    database.dialect === 'sqlite'
      ? { dialect: 'sqlite' as const, sqlitePath: sqlitePathOf(config) }
      : { dialect: 'postgres' as const, postgresUrl: config.databaseUrl! };
  const ingest = new Ingest(staged, writePath);
  const layerIngest = new LayerIngest({
    db,
    layers,
    features: featureTables,
    points: new PointImport(db, markers, geo),
    staged,
    database: ingestDatabase,
    tmpDir: tmpDirOf(config),
    quota: files,
    geo,
  });
  const rasterIngest = new RasterIngest({
    db,
    rasters,
    files,
    staged,
    tmpDir: tmpDirOf(config),
    tiles: rasterTiles,
    geo,
  });
  const fileUploads = new Uploads({
    files,
    jobs,
    ingest,
    steps: { vector: layerIngest, raster: rasterIngest },
    styleProblem: (style) => styleCheck.problem(style),
    syncMaxBytes: config.uploadSyncMaxBytes,
  });
  const layersService = new LayersService({
    layers,
    featureTables,
    ingest,
    vectorIngest: layerIngest,
    files,
    writePath,
    tmpDir: tmpDirOf(config),
  });
  content.register(layerContent(layers, featureTables));
  content.register(rasterContent(rasters, files));
  const layerRoom = { param: 'layerId', what: 'Layer', find: (id: string) => layers.roomOf(id) };
  await app.register(uploadsRoutes, { uploads: fileUploads, receiver: uploads });
  const featureAttributes = new FeatureAttributesRepository(db, database.dialect);
  const attributes = new LayerAttributes({
    layers,
    attributes: featureAttributes,
    scanRows: config.attributesScanRows,
  });
  await app.register(layersRoutes, { layers: layersService, attributes, layerRoom });
  await app.register(rastersRoutes, {
    rasters: new RastersService({
      rasters,
      files,
      writePath,
      tiles: rasterTiles,
      points: new RasterPoints(config.rasterPointConcurrency, geo.quick),
      pointAnswers: new TtlCache(10 * 60_000, config.rasterPointCacheEntries),
    }),
  });
  const chunked = new ChunkedUploads(new UploadChunksRepository(db), files, fileUploads);
  await app.register(chunkedUploadsRoutes, { chunked, receiver: uploads });

  // Drawings, slides, comments.
  const drawings = new DrawingsRepository(db);
  const comments = new CommentsRepository(db);
  const replies = new RoomTable(db, 'comment_replies');
  content.register(contentOf('drawings', drawings));
  content.register(contentOf('slides', slides));
  content.register(contentOf('comments', comments));
  await app.register(drawingsRoutes, { drawings: new DrawingsService(drawings, writePath) });
  await app.register(slidesRoutes, { slides: new SlidesService({ slides, markers, drawings, layers, writePath }) });
  await app.register(commentsRoutes, {
    comments: new CommentsService({ comments, replies, writePath, layers, names: actorNames }),
  });
  await app.register(searchRoutes, {
    search: new SearchService({
      markers,
      drawings,
      layers,
      attributes: featureAttributes,
      scanRows: config.attributesScanRows,
    }),
    geocoder: new Geocoder(config.geocoderUrl, config.geocoderTimeoutMs),
    geocodesPerMinute: config.geocoderRateLimitPerMinute,
    searchesPerMinute: config.searchRateLimitPerMinute,
  });
  await app.register(ogcRoutes, {
    ogc: new OgcService({ layers, featureTables, markers, drawings, scanRows: config.ogcScanRows }),
  });

  // Export, import and clone of whole rooms.
  const exchanges = roomExchanges(db, files);
  const exporter = new RoomExporter(
    { exchanges, files, concurrency: config.exportConcurrency },
    ingestDatabase,
    tmpDirOf(config),
    geo,
  );
  const exportsService = new ExportsService(exporter, new ExportJobsRepository(db), files, jobs);
  const roomImport = new RoomImport({
    files,
    staged,
    layers: layerIngest,
    rasters: rasterIngest,
    writePath,
    tmpDir: tmpDirOf(config),
    geo,
    exchanges,
  });
  const clones = new RoomClones({
    sources: { exchanges, files, rooms, layers },
    keys: sessions,
    exporter,
    layers: layerIngest,
    rasters: rasterIngest,
    staged,
    writePath,
    tmpDir: tmpDirOf(config),
    jobs,
  });
  await app.register(exportsRoutes, { exports: exportsService, roomImport, clones, receiver: uploads });

  // History and the live channel.
  const history = new HistoryRepository(db);
  const restore = new RestoreService(history, writePath, [
    markerRestorable(markers, markerImages, icons),
    drawingRestorable(drawings),
    ...commentRestorables(comments, replies, actorNames),
    slideRestorable({ slides, markers, drawings, layers }),
    layerRestorable(layers),
    rasterRestorable(rasters),
  ]);
  await app.register(historyRoutes, { history: new HistoryService(history, actorNames), restore });
  await app.register(snapshotRoutes, { snapshot: new SnapshotService({ history, markers, drawings, layers }) });
  const presence = new RoomPresence(
    config.redisUrl ? await RedisPresence.open(config.redisUrl, app.log) : new InProcessPresence(),
    actorNames,
    config.redisUrl ? await RedisBroadcast.open<PresenceNotice>(config.redisUrl, 'presence', app.log) : undefined,
  );
  app.addHook('onClose', () => presence.close());
  await app.register(liveRoutes, {
    live: new LiveService({
      hub: live,
      history,
      rooms,
      authenticator,
      access,
      presence,
      heartbeatMs: config.liveHeartbeatMs,
    }),
  });

  // The instance admin: users, rooms, jobs, limits and the audit list.
  await app.register(adminRoutes, {
    admin: new AdminService({
      accounts: {
        setDisabled: (userId, disabled) => usersService.setDisabled(userId, disabled),
        deleteAccount: (userId, options) => usersService.deleteAccount(userId, options),
        findUser: (userId) => users.findById(userId),
        isAdmin: (user) => admins.isAdmin(user),
        sendReset: (user) => passwordReset.sendTo(user),
        transferOwnership: (roomId, toUserId, actor) => membersService.transferOwnership(roomId, toUserId, actor),
      },
      lists: new AdminListsRepository(db),
      audit: new AuditRepository(db),
      jobs,
      rooms: { find: (id) => rooms.find(id), delete: (room) => roomsService.delete(room) },
      limits: { maxRoomsPerUser: config.maxRoomsPerUser, storageQuotaBytes: config.storageQuotaBytes },
    }),
  });

  // Background work (src/jobs.ts): every job kind and sweep; sweeps first, then the jobs left waiting.
  registerJobKinds(jobs, { bulkImport, layerUploads: fileUploads, exports: exportsService, clones });
  const undoStaging = () => undoInterruptedStaging(staged, [layerIngest, rasterIngest]);
  scheduleSweeps(sweeps, {
    chunked,
    exports: exportsService,
    undoStaging,
    users: usersService,
    passwordReset,
    oidcFlows: oidc.signIn,
  });
  await app.ready();
  try {
    if (runsJobs) {
      const undone = await undoStaging();
      if (undone) app.log.warn({ stages: undone }, 'undid staged writes a stopped instance left');
      await sweeps.start();
    }
    await jobs.start();
  } catch (error) {
    await app.close(); // the database and the data directory's lock with it
    throw error;
  }
  return { app, database, accounts: { users: usersService, passwordReset, members: membersService } };
}
