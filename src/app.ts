import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AccessChange } from './auth/access-source.js';
import { InstanceAdmins } from './auth/admins.js';
import { Authenticator, LAST_USED_PRECISION_MS } from './auth/authenticator.js';
import { SessionKeys } from './auth/sessions.js';
import { publicUrlOf, tmpDirOf, type Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { registerAccessHook } from './http/access-hook.js';
import { serveOnlyProbes } from './http/instance-role.js';
import { closeLiveSocketsForRestart, registerStopping, Stopping } from './http/stopping.js';
import { frameworkErrorHandler, registerErrorHandling } from './http/error-handler.js';
import { loggerOptions, requestIds, requestLogger } from './http/logging.js';
import { registerOpenApi } from './http/openapi.js';
import { registerRateLimits } from './http/rate-limits.js';
import { parseJsonBodies, refuseNulInUrls } from './http/request-bodies.js';
import { ErrorBody } from './http/schemas.js';
import { acceptMultipart, UploadReceiver } from './http/uploads.js';
import { registerValidators } from './http/validation.js';
import { registerOfflineBasemap } from './http/offline-basemap.js';
import { registerWebApp } from './http/web-app.js';
import { registerWriteOnlyAnswers } from './http/write-only-answers.js';
import type { BlobStore } from './infra/blob-store.js';
import { blobStoreOf } from './infra/configured-blob-store.js';
import { scheduledBackups } from './backup/scheduled-backups.js';
import { InProcessLiveHub, type LiveHub } from './infra/live-hub.js';
import { redisParts } from './infra/redis-parts.js';
import { InProcessPresence } from './infra/presence.js';
import { LogMailer, Outbox, SmtpMailer, type Mailer } from './infra/mailer.js';
import { Metrics } from './infra/metrics.js';
import { timedBlobStore } from './infra/timed-blob-store.js';
import { gdalProcessesRunning } from './geo-engine/gdal-process.js';
import { jobSystemOf, registerJobKinds, scheduleSweeps, undoInterruptedStaging } from './jobs.js';
import {
  type DomainCore,
  type DomainModule,
  domainCoreOf,
  type Exchange,
  exchangesInFileOrder,
} from './modules/domain/domain.js';
import type { ReadinessChecks } from './modules/health/health.module.js';
import { RoomContent } from './modules/domain/room-content.js';
import { roomAccessOf } from './modules/access/access.module.js';
import { adminDomain } from './modules/admin/admin.module.js';
import { commentsDomain } from './modules/comments/comments.module.js';
import { drawingsDomain } from './modules/drawings/drawings.module.js';
import { embeddingDomain } from './modules/embedding/embedding.module.js';
import { exportsDomain } from './modules/exports/exports.module.js';
import { healthDomain } from './modules/health/health.module.js';
import { historyDomain } from './modules/history/history.module.js';
import { iconsDomain } from './modules/icons/icons.module.js';
import { ingestDomains } from './modules/ingest/ingest.module.js';
import { jobsDomain } from './modules/jobs/jobs.module.js';
import { layersDomain } from './modules/layers/layers.module.js';
import { liveDomain, type PresenceNotice } from './modules/live/live.module.js';
import { bulkImportDomain, markersDomain } from './modules/markers/markers.module.js';
import { membersDomain } from './modules/members/members.module.js';
import { ogcDomain } from './modules/ogc/ogc.module.js';
import { oidcDomain } from './modules/oidc/oidc.module.js';
import { rastersDomain } from './modules/rasters/rasters.module.js';
import { roomsDomain } from './modules/rooms/rooms.module.js';
import { searchDomain } from './modules/search/search.module.js';
import { slidesDomain } from './modules/slides/slides.module.js';
import { snapshotDomain } from './modules/snapshot/snapshot.module.js';
import { tokensDomain } from './modules/tokens/tokens.module.js';
import { webhooksDomain } from './modules/webhooks/webhooks.module.js';
import { usersDomain } from './modules/users/users.module.js';

export interface App {
  app: FastifyInstance;
  database: Database;
  /** The account services that admin actions call (and tests, for states no public route reaches). */
  accounts: Accounts;
  /** What a room export holds, table by table, in the file's order (tests compare it with the database). */
  exchanges: Exchange[];
  /** Starts stopping (src/http/stopping.ts): reads and readiness answer 503 for `ms`; then close the app. */
  drain(ms: number): Promise<void>;
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
    // A request that reaches a closing instance on a connection it still has is served as while
    // draining (src/http/stopping.ts), not refused with Fastify's own 503.
    return503OnClosing: false,
    genReqId: requestIds(),
  }).withTypeProvider<TypeBoxTypeProvider>();
  registerValidators(app);
  registerErrorHandling(app);
  parseJsonBodies(app);
  app.addSchema(ErrorBody);
  await registerOpenApi(app);
  await registerRateLimits(app, config);
  acceptMultipart(app);
  await app.register(websocket, { options: { maxPayload: 64 * 1024 }, preClose: closeLiveSocketsForRestart });
  return app;
}

/** What the domains are built with besides their core: sessions, admins, mail, the live hub, the readiness checks. */
interface AppParts {
  sessions: SessionKeys;
  admins: InstanceAdmins;
  outbox: Outbox;
  publicUrl: string;
  log: FastifyInstance['log'];
  hub: LiveHub;
  readiness: ReadinessChecks;
  /** The metrics, when METRICS_TOKEN is set. */
  metrics: Metrics | null;
}

/**
 * Every domain, built from its descriptor (`<domain>.module.ts`) with what it needs of the
 * others, listed in the order their routes are registered (it fixes the OpenAPI document's).
 */
async function appDomains(core: DomainCore, parts: AppParts) {
  const { config } = core;
  const { sessions, admins, outbox, publicUrl, log, hub } = parts;
  const health = healthDomain(core.database, parts.readiness, { metrics: parts.metrics, token: config.metricsToken });
  const tokens = tokensDomain(core);
  const members = membersDomain(core, { outbox, publicUrl });
  const content = new RoomContent(core.db);
  const rooms = roomsDomain(core, { members: members.provides.members, owners: members.provides.service, content });
  const users = usersDomain(core, {
    sessions,
    admins,
    outbox,
    publicUrl,
    members: members.provides.members,
    invitations: members.provides.service,
    deleteRoom: rooms.provides.deleteRoom,
    tokens: tokens.provides.tokens,
  });
  const { names } = users.provides;
  const oidc = oidcDomain(core, {
    sessions,
    invitations: members.provides.service,
    publicUrl,
    log,
    holders: users.provides.holders,
    users: users.provides.users,
    members: members.provides.members,
  });
  const icons = iconsDomain(core);
  const markers = markersDomain(core, icons.provides);
  const rasters = rastersDomain(core);
  const layers = layersDomain(core, {
    markers: markers.provides.markers,
    otherKinds: [rasters.provides.kind],
    names,
  });
  const ingest = ingestDomains(core, {
    steps: { vector: layers.provides.ingest, raster: rasters.provides.ingest },
    styleProblem: layers.provides.styleProblem,
  });
  const drawings = drawingsDomain(core);
  const embedding = embeddingDomain(core, { rooms: rooms.provides.rooms, layers: layers.provides.layers });
  const shown = {
    markers: markers.provides.markers,
    drawings: drawings.provides.drawings,
    layers: layers.provides.layers,
  };
  const domains: DomainModule[] = [
    health,
    users,
    oidc,
    rooms,
    members,
    tokens,
    webhooksDomain(core, { log }),
    markers,
    icons,
    bulkImportDomain(core, { ...markers.provides, ...icons.provides }),
    jobsDomain(core),
    ingest.uploads,
    layers,
    rasters,
    ingest.chunkedUploads,
    drawings,
    slidesDomain(core, shown),
    embedding,
    commentsDomain(core, { layers: layers.provides.layers, names }),
    searchDomain(core, { ...shown, attributes: layers.provides.attributes }),
    ogcDomain(core, { ...shown, featureTables: layers.provides.featureTables, edits: layers.provides.edits }),
  ];
  // The room export's tables in the file's order, which fixes the GeoPackage's table order.
  const exchanges = exchangesInFileOrder(domains, [
    'rooms',
    'layers',
    'comments',
    'slides',
    'icons',
    'markers',
    'drawings',
  ]);
  const exports = exportsDomain(core, {
    sources: { exchanges, files: core.files, rooms: rooms.provides.rooms, layers: layers.provides.layers },
    layers: layers.provides.ingest,
    rasters: rasters.provides.ingest,
    keys: sessions,
  });
  const restorables = domains.flatMap((domain) => domain.restorables ?? []);
  const history = historyDomain(core, { names, restorables });
  const authenticator = new Authenticator(sessions, core.access, {
    tokenUsed: tokens.provides.tokenUsed,
    embedKeyUsed: embedding.provides.keyUsed,
    userSeen: (userId, at) => users.provides.users.touchSeen(userId, at, LAST_USED_PRECISION_MS),
    externalSignIn: (claims) => users.provides.service.externalSignIn(claims),
  });
  const presence = config.redisUrl
    ? await (await redisParts()).RedisPresence.open(config.redisUrl, log)
    : new InProcessPresence();
  const live = liveDomain(core, {
    hub,
    history: history.provides.history,
    rooms: rooms.provides.rooms,
    authenticator,
    names,
    presence,
    ...(config.redisUrl && {
      notices: await (await redisParts()).RedisBroadcast.open<PresenceNotice>(config.redisUrl, 'presence', log),
    }),
  });
  const admin = adminDomain(core, {
    admins,
    users: users.provides.users,
    accounts: users.provides.service,
    passwordReset: users.provides.passwordReset,
    members: members.provides.service,
    rooms: rooms.provides.rooms,
    roomsService: rooms.provides.service,
  });
  parts.metrics?.watch({
    live: live.provides.counts,
    jobs: () => core.jobs.counts(),
    gdalProcesses: gdalProcessesRunning,
    presence: () => presence.here(),
  });
  return {
    domains: [
      ...domains,
      exports,
      history,
      snapshotDomain({ ...shown, history: history.provides.history }),
      live,
      admin,
    ],
    content,
    exchanges,
    authenticator,
    pages: embedding.provides.pages,
    accounts: {
      users: users.provides.service,
      passwordReset: users.provides.passwordReset,
      members: members.provides.service,
    },
  };
}

type Accounts = Awaited<ReturnType<typeof appDomains>>['accounts'];

/**
 * The composition root: infrastructure first, then each domain's repository, service and
 * routes. Services receive what they use; nothing reaches for a global.
 */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const metrics = config.metricsToken ? new Metrics() : null;
  const database = await openDatabase(config, metrics ?? undefined);
  const { db } = database;
  const app = await createServer(config, options);
  if (config.instanceRole === 'jobs') serveOnlyProbes(app);
  const stopping = new Stopping();
  registerStopping(app, stopping);
  if (metrics) metrics.observeRequests(app);
  database.onLockLost((error) =>
    app.log.fatal(
      { err: error },
      'lost the PostgreSQL lock of this instance: restart it (GET /api/health answers 503)',
    ),
  );

  const live =
    options.liveHub ??
    (config.redisUrl ? await (await redisParts()).RedisLiveHub.open(config.redisUrl, app.log) : new InProcessLiveHub());
  const { jobs, sweeps, runsJobs } = await jobSystemOf(
    config,
    db,
    app.log,
    options.jobWorkers ?? 1,
    metrics ?? undefined,
  );
  const redis = config.redisUrl ? (await redisParts()).redisProbe(config.redisUrl) : null;
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
  const configured = await blobStoreOf(config);
  const stored = metrics ? timedBlobStore(configured, metrics) : configured;
  const blobs = options.wrapBlobStore?.(stored) ?? stored;
  const receiver = new UploadReceiver(tmpDirOf(config));
  // What a crash left half-written or half-received.
  await Promise.all([blobs.clean(), receiver.clean()]);
  // With Redis, each instance tells the others what it changed (`others`).
  const accessChanges = config.redisUrl
    ? await (await redisParts()).RedisBroadcast.open<AccessChange>(config.redisUrl, 'access-changes', app.log)
    : undefined;
  if (accessChanges) app.addHook('onClose', () => accessChanges.close());
  const access = roomAccessOf(db, config, accessChanges);
  const core = domainCoreOf({ config, database, jobs, receiver, access, live, blobs });
  const sessions = new SessionKeys(config);
  const admins = new InstanceAdmins(config);
  const built = await appDomains(core, {
    sessions,
    admins,
    outbox,
    publicUrl,
    log: app.log,
    hub: live,
    metrics,
    readiness: {
      redis: redis?.ping ?? null,
      objectStore: async () => blobs.ping?.(),
      timeoutMs: config.readyCheckTimeoutMs,
      stopping: () => stopping.started,
    },
  });
  const { domains, content } = built;
  for (const domain of domains) for (const table of domain.content ?? []) content.register(table);
  app.addHook('onClose', async () => {
    for (const domain of domains) await domain.close?.();
  });

  registerAccessHook(app, built.authenticator, core.access, admins);
  registerWriteOnlyAnswers(app);
  refuseNulInUrls(app);
  await registerWebApp(app, config, built.pages);
  await registerOfflineBasemap(app);
  for (const domain of domains) for (const register of domain.routes ?? []) await register(app);

  // Background work (src/jobs.ts): every job kind and sweep; sweeps first, then the jobs left waiting.
  registerJobKinds(jobs, domains);
  const undoStaging = () => undoInterruptedStaging(core.staged, domains);
  scheduleSweeps(sweeps, domains, undoStaging);
  const backups = scheduledBackups(config, app.log);
  if (backups) sweeps.add(backups);
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
  return {
    app,
    database,
    accounts: built.accounts,
    exchanges: built.exchanges,
    drain: (ms) => stopping.drain(ms),
  };
}
