import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { CronExpressionParser } from 'cron-parser';

/** Every setting of the service, read from environment variables (see README). */
export const ConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  host: Type.String({ minLength: 1, default: '127.0.0.1' }),
  dataDir: Type.String({ minLength: 1, default: './data' }),
  /** Uploads in progress; emptied at start. Default DATA_DIR/tmp (each instance needs its own). */
  tmpDir: Type.Optional(Type.String({ minLength: 1 })),
  databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  jwtSecret: Type.Optional(Type.String({ minLength: 32 })),
  /** Redis (`redis://host:6379/N`): live fan-out, access changes, rate limits and the job queue shared by several instances. */
  redisUrl: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  /** The S3 bucket that holds every stored file (photos, icons, layer sources, rasters, exports); unset: DATA_DIR/blobs. */
  s3Bucket: Type.Optional(Type.String({ minLength: 3, maxLength: 63 })),
  /** The S3 service's address; unset: AWS. */
  s3Endpoint: Type.Optional(Type.String({ pattern: '^https?://' })),
  s3Region: Type.String({ minLength: 1, default: 'us-east-1' }),
  /** Path-style addresses (`endpoint/bucket/key`), which most stores other than AWS need. */
  s3ForcePathStyle: Type.Boolean({ default: false }),
  /** `all` serves requests and runs jobs; `http` only serves; `jobs` only runs jobs and sweeps (and answers /api/health, /api/ready). */
  instanceRole: Type.Enum(['all', 'http', 'jobs'], { default: 'all' }),
  sessionTtlSeconds: Type.Integer({ minimum: 5, default: 7 * 24 * 3600 }),
  /** How long after signing in a session may still be renewed; then it expires and the person signs in again. */
  sessionMaxAgeSeconds: Type.Integer({ minimum: 60, default: 30 * 24 * 3600 }),
  authJwksUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
  authIssuer: Type.Optional(Type.String({ minLength: 1 })),
  authAudience: Type.Optional(Type.String({ minLength: 1 })),
  logLevel: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  storageQuotaBytes: Type.Integer({ minimum: 0, default: 5 * 1024 ** 3 }),
  authRateLimitPerMinute: Type.Integer({ minimum: 1, default: 30 }),
  /** Least time between two confirmation links of one account (`resend-verification`). */
  verificationResendSeconds: Type.Integer({ minimum: 0, default: 60 }),
  /** log2 of scrypt's N for new password hashes (17 is OWASP's recommendation). */
  passwordHashCost: Type.Integer({ minimum: 10, maximum: 20, default: 17 }),
  trustProxy: Type.Boolean({ default: false }),
  /** Where people reach the service; links in e-mails start with it. Default: http://HOST:PORT. */
  publicUrl: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  /** SMTP server for e-mail (`smtp://user:pass@host:587`, `smtps://...`); unset: e-mails go to the log. */
  smtpUrl: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  mailFrom: Type.String({ minLength: 3, default: 'Maproom <maproom@localhost>' }),
  /** Largest JSON body; files go through multipart with their own caps. */
  bodyLimitBytes: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
  /** Connections in the PostgreSQL pool of each instance. */
  pgPoolSize: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  /** How long the access check may reuse a room's or token's row (another instance's change shows within this). */
  accessCacheTtlMs: Type.Integer({ minimum: 0, maximum: 60_000, default: 2000 }),
  /** The built web application (Vite's output); default dist/web next to the service. */
  webDir: Type.Optional(Type.String({ minLength: 1 })),
  /** The web map's base layers: `builtin` (OpenStreetMap, CARTO, Esri, swisstopo tiles) or `none` (a blank map, for installs without internet). */
  basemaps: Type.Enum(['builtin', 'none'], { default: 'builtin' }),
  /** An own tile server for the web map (`https://tiles.example/{z}/{x}/{y}.png`), offered first as "Own tiles". */
  basemapTiles: Type.Optional(Type.String({ pattern: '^https?://[^\\s]*\\{z\\}[^\\s]*$' })),
  /** The attribution shown with `basemapTiles`. */
  basemapAttribution: Type.String({ default: '' }),
  /** GDAL's time for a quick look at one file: an upload's header, the tileable file's description, one point query. */
  gdalQuickTimeoutMs: Type.Integer({ minimum: 1000, default: 60_000 }),
  /** GDAL's time to inspect an uploaded vector file (counting a big GeoJSON's features reads all of it). */
  gdalInspectTimeoutMs: Type.Integer({ minimum: 1000, default: 10 * 60_000 }),
  /** GDAL's time for one run inside a job: reading a layer's features, warping a raster, writing or reading an export. */
  gdalJobTimeoutMs: Type.Integer({ minimum: 1000, default: 60 * 60_000 }),
  /** Address space of each GDAL process (`ulimit -v`), except warps. */
  gdalMemoryBytes: Type.Integer({ minimum: 64 * 1024 ** 2, default: 2 * 1024 ** 3 }),
  /** Address space of GDAL's warps and overviews (raster ingest, export tiles). */
  gdalWarpMemoryBytes: Type.Integer({ minimum: 64 * 1024 ** 2, default: 4 * 1024 ** 3 }),
  /** GDAL's block cache and gdalwarp's working memory, in MB, per run (far below the address space). */
  gdalCacheMb: Type.Integer({ minimum: 16, default: 256 }),
  /** Largest raster accepted, in pixels (a header can claim a million by a million pixels in a few bytes). */
  rasterMaxPixels: Type.Integer({ minimum: 1, default: 2 ** 32 }),
  /**
   * Largest GeoTIFF upload made tileable while the client waits, in pixels times bands (alpha
   * counted); a larger one is a `layer-upload` job (202), whatever its bytes (a header can
   * declare a billion pixels in a few KB, and the warp writes them all).
   */
  rasterSyncMaxPixels: Type.Integer({ minimum: 0, default: 2 ** 24 }),
  /** Zipped shapefiles: largest expansion ratio, expanded size and number of entries (zip bombs). */
  zipMaxRatio: Type.Integer({ minimum: 1, default: 20 }),
  zipMaxExpandedBytes: Type.Integer({ minimum: 1, default: 2 * 1024 ** 3 }),
  zipMaxEntries: Type.Integer({ minimum: 1, default: 10_000 }),
  /** Largest single feature GDAL may hand over, in characters of GeoJSON. */
  maxFeatureChars: Type.Integer({ minimum: 1024, default: 64 * 1024 ** 2 }),
  /** Bytes of decoded raster blocks kept in memory, per instance. */
  rasterBlockCacheBytes: Type.Integer({ minimum: 0, default: 32 * 1024 ** 2 }),
  /** Tileable raster files kept open, per instance. */
  rasterOpenFiles: Type.Integer({ minimum: 1, default: 64 }),
  /** Bytes of rendered raster tiles (PNG) kept in memory, per instance. */
  rasterTileCacheBytes: Type.Integer({ minimum: 0, default: 16 * 1024 ** 2 }),
  /** Raster point queries (one GDAL process each) run at once, per instance; the others wait their turn. */
  rasterPointConcurrency: Type.Integer({ minimum: 1, default: 2 }),
  /** Answers of raster point queries kept in memory, per instance. */
  rasterPointCacheEntries: Type.Integer({ minimum: 0, default: 10_000 }),
  /** Most rows one filtered OGC API items request reads (property filters, bbox); past it the page ends early with a next link. */
  ogcScanRows: Type.Integer({ minimum: 1, default: 50_000 }),
  /** Most rows one text-filtered attribute table page reads per run of its order; past it the page ends early with a next. */
  attributesScanRows: Type.Integer({ minimum: 1, default: 5_000 }),
  /**
   * A place geocoder's search address, Nominatim-compatible (`https://nominatim.example/search?format=jsonv2`)
   * or Photon-compatible (`https://photon.example/api`); the service adds `q` and `limit`. Unset: no place search.
   */
  geocoderUrl: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  /** How long the service waits for the geocoder's answer. */
  geocoderTimeoutMs: Type.Integer({ minimum: 100, default: 5_000 }),
  /** Place searches one caller may make per minute (the geocoder's own limits are far stricter than ours). */
  geocoderRateLimitPerMinute: Type.Integer({ minimum: 1, default: 60 }),
  /** Room searches one caller may make per minute (a person typing asks at most 4 a second; each reads up to 20 layers' windows). */
  searchRateLimitPerMinute: Type.Integer({ minimum: 1, default: 600 }),
  /** Who may create an account: anyone (`open`), only addresses with a pending invitation (`invite`), nobody (`closed`). */
  signup: Type.Enum(['open', 'invite', 'closed'], { default: 'open' }),
  /** E-mail domains new accounts may have (comma-separated, e.g. `example.org,example.com`); unset: any. */
  signupDomains: Type.Optional(Type.String({ minLength: 1 })),
  /** `off` leaves only the identity providers: no sign-up, log-in or password reset with an e-mail and password. */
  localAccounts: Type.Enum(['on', 'off'], { default: 'on' }),
  /** Password-reset mails one address gets per hour at most; further requests still answer 202 but send nothing. */
  passwordResetsPerAddressPerHour: Type.Integer({ minimum: 1, default: 3 }),
  /** How recent a sign-in must be for an account without a password to delete itself (seconds). */
  freshSignInSeconds: Type.Integer({ minimum: 10, default: 300 }),
  /** The instance admins' e-mail addresses (comma-separated). */
  adminEmails: Type.Optional(Type.String({ minLength: 1 })),
  /** One OpenID Connect provider (id `oidc`): its issuer, client id and secret, and its button's label. */
  oidcIssuer: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  oidcClientId: Type.Optional(Type.String({ minLength: 1 })),
  oidcClientSecret: Type.Optional(Type.String({ minLength: 1 })),
  oidcName: Type.String({ minLength: 1, maxLength: 100, default: 'Single sign-on' }),
  /** The claim that names an instance admin (`claim=value`, e.g. `groups=maproom-admins`). */
  oidcAdminClaim: Type.Optional(Type.String({ pattern: '^[^=\\s]+=.+$' })),
  /** Several providers, as a JSON list of `{id, name, issuer, clientId, clientSecret, adminClaim}`. */
  oidcProviders: Type.Optional(Type.String({ minLength: 2 })),
  /** Seconds a browser has between starting a sign-in with a provider and coming back from it. */
  oidcFlowSeconds: Type.Integer({ minimum: 60, maximum: 3600, default: 600 }),
  /** Rooms one user may own (0: no limit). */
  maxRoomsPerUser: Type.Integer({ minimum: 0, default: 0 }),
  /** How long one discovery request to an identity provider may take before it counts as unreachable. */
  oidcDiscoveryTimeoutSeconds: Type.Integer({ minimum: 1, maximum: 300, default: 10 }),
  /** Largest upload processed while the client waits; a bigger one is a `layer-upload` job (202). */
  uploadSyncMaxBytes: Type.Integer({ minimum: 0, default: 5 * 1024 * 1024 }),
  /** Heap of the worker thread that stores a vector file's features, in MB (a 64 MB feature parses within 768). */
  vectorWorkerHeapMb: Type.Integer({ minimum: 128, default: 768 }),
  /** Room exports written at once per instance (each a worker thread and a temporary file); others wait their turn. */
  exportConcurrency: Type.Integer({ minimum: 1, default: 2 }),
  /** How long `/api/ready` waits for each dependency (database, Redis, object store) before it counts as down. */
  readyCheckTimeoutMs: Type.Integer({ minimum: 100, default: 2000 }),
  /** How often the live channel pings its clients; a client that missed the previous ping is dropped. */
  liveHeartbeatMs: Type.Integer({ minimum: 1000, default: 15_000 }),
  /** After SIGTERM, how long the instance keeps serving writes while its reads and `/api/ready` answer 503, before it closes (src/http/stopping.ts). */
  shutdownDrainMs: Type.Integer({ minimum: 0, maximum: 60_000, default: 1000 }),
  /** Lets the service send requests to loopback, link-local and private addresses a user gave (webhooks, remote layers); off by default. */
  outboundAllowPrivate: Type.Boolean({ default: false }),
  /** How long one read of a remote layer's source may take in all (each OGC API page its own request). */
  remoteLayerTimeoutMs: Type.Integer({ minimum: 1000, maximum: 3_600_000, default: 300_000 }),
  /** How long a webhook's receiver has to answer one delivery. */
  webhookTimeoutMs: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
  /** The bearer token `GET /metrics` asks for (32 characters or more, no spaces); unset, the route answers 404 (no metrics are kept). */
  metricsToken: Type.Optional(Type.String({ pattern: '^\\S{32,}$' })),
  /** When scheduled backups run: a cron pattern (five fields, UTC), such as `0 3 * * *`; unset, none run. */
  backupSchedule: Type.Optional(Type.String({ minLength: 1 })),
  /** The folder scheduled backups go into (a folder per backup, `maproom-<time>`). */
  backupDir: Type.Optional(Type.String({ minLength: 1 })),
  /** How many scheduled backups are kept in BACKUP_DIR; older ones are removed after each new one. */
  backupKeep: Type.Integer({ minimum: 1, default: 7 }),
  /** The waits before each retry of a failed delivery, in ms (Standard Webhooks' schedule); after the last, the hook is disabled. */
  webhookRetryDelaysMs: Type.String({
    pattern: '^\\d+(,\\d+){0,19}$',
    default: '5000,300000,1800000,7200000,18000000,36000000',
  }),
});

export type Config = Static<typeof ConfigSchema>;

/** Environment variable that feeds each setting. */
const ENV_NAMES: Record<keyof Config, string> = {
  port: 'PORT',
  host: 'HOST',
  dataDir: 'DATA_DIR',
  tmpDir: 'TMP_DIR',
  databaseUrl: 'DATABASE_URL',
  jwtSecret: 'JWT_SECRET',
  redisUrl: 'REDIS_URL',
  s3Bucket: 'S3_BUCKET',
  s3Endpoint: 'S3_ENDPOINT',
  s3Region: 'S3_REGION',
  s3ForcePathStyle: 'S3_FORCE_PATH_STYLE',
  instanceRole: 'INSTANCE_ROLE',
  sessionTtlSeconds: 'SESSION_TTL_SECONDS',
  sessionMaxAgeSeconds: 'SESSION_MAX_AGE_SECONDS',
  authJwksUrl: 'AUTH_JWKS_URL',
  authIssuer: 'AUTH_ISSUER',
  authAudience: 'AUTH_AUDIENCE',
  logLevel: 'LOG_LEVEL',
  storageQuotaBytes: 'STORAGE_QUOTA_BYTES',
  authRateLimitPerMinute: 'AUTH_RATE_LIMIT_PER_MINUTE',
  verificationResendSeconds: 'VERIFICATION_RESEND_SECONDS',
  passwordHashCost: 'PASSWORD_HASH_COST',
  trustProxy: 'TRUST_PROXY',
  publicUrl: 'PUBLIC_URL',
  smtpUrl: 'SMTP_URL',
  mailFrom: 'MAIL_FROM',
  bodyLimitBytes: 'BODY_LIMIT_BYTES',
  pgPoolSize: 'PG_POOL_SIZE',
  accessCacheTtlMs: 'ACCESS_CACHE_TTL_MS',
  webDir: 'WEB_DIR',
  basemaps: 'BASEMAPS',
  basemapTiles: 'BASEMAP_TILES',
  basemapAttribution: 'BASEMAP_ATTRIBUTION',
  gdalQuickTimeoutMs: 'GDAL_QUICK_TIMEOUT_MS',
  gdalInspectTimeoutMs: 'GDAL_INSPECT_TIMEOUT_MS',
  gdalJobTimeoutMs: 'GDAL_JOB_TIMEOUT_MS',
  gdalMemoryBytes: 'GDAL_MEMORY_BYTES',
  gdalWarpMemoryBytes: 'GDAL_WARP_MEMORY_BYTES',
  gdalCacheMb: 'GDAL_CACHE_MB',
  rasterMaxPixels: 'RASTER_MAX_PIXELS',
  rasterSyncMaxPixels: 'RASTER_SYNC_MAX_PIXELS',
  zipMaxRatio: 'ZIP_MAX_RATIO',
  zipMaxExpandedBytes: 'ZIP_MAX_EXPANDED_BYTES',
  zipMaxEntries: 'ZIP_MAX_ENTRIES',
  maxFeatureChars: 'MAX_FEATURE_CHARS',
  rasterBlockCacheBytes: 'RASTER_BLOCK_CACHE_BYTES',
  rasterOpenFiles: 'RASTER_OPEN_FILES',
  rasterTileCacheBytes: 'RASTER_TILE_CACHE_BYTES',
  rasterPointConcurrency: 'RASTER_POINT_CONCURRENCY',
  rasterPointCacheEntries: 'RASTER_POINT_CACHE_ENTRIES',
  ogcScanRows: 'OGC_SCAN_ROWS',
  attributesScanRows: 'ATTRIBUTES_SCAN_ROWS',
  geocoderUrl: 'GEOCODER_URL',
  geocoderTimeoutMs: 'GEOCODER_TIMEOUT_MS',
  geocoderRateLimitPerMinute: 'GEOCODER_RATE_LIMIT_PER_MINUTE',
  searchRateLimitPerMinute: 'SEARCH_RATE_LIMIT_PER_MINUTE',
  signup: 'SIGNUP',
  signupDomains: 'SIGNUP_DOMAINS',
  localAccounts: 'LOCAL_ACCOUNTS',
  passwordResetsPerAddressPerHour: 'PASSWORD_RESETS_PER_ADDRESS_PER_HOUR',
  freshSignInSeconds: 'FRESH_SIGN_IN_SECONDS',
  adminEmails: 'ADMIN_EMAILS',
  oidcIssuer: 'OIDC_ISSUER',
  oidcClientId: 'OIDC_CLIENT_ID',
  oidcClientSecret: 'OIDC_CLIENT_SECRET',
  oidcName: 'OIDC_NAME',
  oidcAdminClaim: 'OIDC_ADMIN_CLAIM',
  oidcProviders: 'OIDC_PROVIDERS',
  oidcFlowSeconds: 'OIDC_FLOW_SECONDS',
  maxRoomsPerUser: 'MAX_ROOMS_PER_USER',
  oidcDiscoveryTimeoutSeconds: 'OIDC_DISCOVERY_TIMEOUT_SECONDS',
  uploadSyncMaxBytes: 'UPLOAD_SYNC_MAX_BYTES',
  vectorWorkerHeapMb: 'VECTOR_WORKER_HEAP_MB',
  exportConcurrency: 'EXPORT_CONCURRENCY',
  readyCheckTimeoutMs: 'READY_CHECK_TIMEOUT_MS',
  liveHeartbeatMs: 'LIVE_HEARTBEAT_MS',
  shutdownDrainMs: 'SHUTDOWN_DRAIN_MS',
  outboundAllowPrivate: 'OUTBOUND_ALLOW_PRIVATE',
  remoteLayerTimeoutMs: 'REMOTE_LAYER_TIMEOUT_MS',
  webhookTimeoutMs: 'WEBHOOK_TIMEOUT_MS',
  webhookRetryDelaysMs: 'WEBHOOK_RETRY_DELAYS_MS',
  metricsToken: 'METRICS_TOKEN',
  backupSchedule: 'BACKUP_SCHEDULE',
  backupDir: 'BACKUP_DIR',
  backupKeep: 'BACKUP_KEEP',
};

export class ConfigError extends Error {}

/** Builds the configuration from the environment plus explicit overrides (tests use those). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const [key, envName] of Object.entries(ENV_NAMES)) {
    const value = env[envName];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw));
  const config = { ...(converted as object), ...overrides };
  if (!Value.Check(ConfigSchema, config)) {
    const problems = [...Value.Errors(ConfigSchema, config)].map((e) => {
      const key = e.instancePath.replace(/^\//, '') as keyof Config;
      return `${ENV_NAMES[key] ?? key}: ${e.message}`;
    });
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  if (config.databaseUrl && !config.jwtSecret) {
    // Instances sharing a database must sign sessions alike; one generated per data directory would not.
    throw new ConfigError(
      'Invalid configuration: JWT_SECRET is required with DATABASE_URL (several instances must share it)',
    );
  }
  if (config.redisUrl && !config.databaseUrl) {
    throw new ConfigError(
      'Invalid configuration: REDIS_URL needs DATABASE_URL (several instances share a PostgreSQL database)',
    );
  }
  if (config.instanceRole !== 'all' && !config.redisUrl) {
    throw new ConfigError(
      `Invalid configuration: INSTANCE_ROLE=${config.instanceRole} needs REDIS_URL (the jobs reach their workers through Redis)`,
    );
  }
  if (config.geocoderUrl !== undefined && !URL.canParse(config.geocoderUrl)) {
    throw new ConfigError(`Invalid configuration: GEOCODER_URL is not an address: ${config.geocoderUrl}`);
  }
  if (config.authJwksUrl && (!config.authIssuer || !config.authAudience)) {
    throw new ConfigError('Invalid configuration: AUTH_ISSUER and AUTH_AUDIENCE are required with AUTH_JWKS_URL');
  }
  oidcProvidersOf(config);
  checkBackupSchedule(config);
  return config;
}

function checkBackupSchedule(config: Config): void {
  if (config.backupSchedule === undefined) return;
  if (!config.backupDir) throw new ConfigError('Invalid configuration: BACKUP_SCHEDULE needs BACKUP_DIR');
  try {
    CronExpressionParser.parse(config.backupSchedule, { tz: 'UTC' });
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration: BACKUP_SCHEDULE is not a cron pattern (such as "0 3 * * *"): ${(error as Error).message}`,
    );
  }
}

/**
 * Whether this instance may share its database with others: that takes PostgreSQL, Redis
 * (live, access changes, rate limits, jobs) and S3 (files every instance reads).
 */
export const isScaleOut = (config: Config) => Boolean(config.databaseUrl && config.redisUrl && config.s3Bucket);

/** A comma-separated setting as a list of lower-case entries (none when unset). */
export const listSetting = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');

/** The SQLite database file (embedded mode). */
export const sqlitePathOf = (config: Config) => `${config.dataDir.replace(/\/+$/, '')}/maproom.db`;

/** Where uploads in progress are kept. */
export const tmpDirOf = (config: Config) => config.tmpDir ?? `${config.dataDir.replace(/\/+$/, '')}/tmp`;

/** The base of links sent by e-mail: PUBLIC_URL, else the address the service listens on. */
export function publicUrlOf(config: Config): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** Time and address-space limits of one GDAL run (geo-engine's GdalLimits without the run's own options). */
export interface GdalRunLimits {
  timeoutMs: number;
  memoryBytes: number;
  /** Largest stdout kept of a tool whose answer is read whole (gdalinfo -json, the vector inspection). */
  maxOutputBytes: number;
}

/**
 * Every limit of the geo engine, in one place: what each kind of GDAL run may take, and the
 * caps on what an upload may hold. Built once in app.ts and passed to geo-engine's functions.
 */
export interface GeoLimits {
  /** A quick look at one file (a header, a point). */
  quick: GdalRunLimits;
  /** Inspecting an uploaded vector file. */
  inspect: GdalRunLimits;
  /** One run inside a job (a layer's features, an import's tables). */
  job: GdalRunLimits;
  /** Warps and overviews (raster ingest, export tiles). */
  warp: GdalRunLimits;
  /** GDAL_CACHEMAX and gdalwarp -wm, in MB. */
  cacheMb: number;
  rasterMaxPixels: number;
  /** Pixels times bands of the largest GeoTIFF upload processed while the client waits. */
  rasterSyncMaxPixels: number;
  zip: { maxRatio: number; maxExpandedBytes: number; maxEntries: number };
  maxFeatureChars: number;
  /** Heap of the vector ingest's worker thread, in MB. */
  vectorWorkerHeapMb: number;
}

/** Sizes of the raster caches (one TileableFiles and one RasterTiles per instance). */
export interface RasterCacheSizes {
  blockCacheBytes: number;
  openFiles: number;
  tileCacheBytes: number;
  /** How long a forgotten tileable file stays open for reads already under way. */
  closeDelayMs: number;
}

/** The geo engine's limits under a configuration. */
export function geoLimitsOf(config: Config): GeoLimits {
  const memoryBytes = config.gdalMemoryBytes;
  const maxOutputBytes = 64 * 1024 ** 2;
  return {
    quick: { timeoutMs: config.gdalQuickTimeoutMs, memoryBytes, maxOutputBytes },
    inspect: { timeoutMs: config.gdalInspectTimeoutMs, memoryBytes, maxOutputBytes },
    job: { timeoutMs: config.gdalJobTimeoutMs, memoryBytes, maxOutputBytes },
    warp: { timeoutMs: config.gdalJobTimeoutMs, memoryBytes: config.gdalWarpMemoryBytes, maxOutputBytes },
    cacheMb: config.gdalCacheMb,
    rasterMaxPixels: config.rasterMaxPixels,
    rasterSyncMaxPixels: config.rasterSyncMaxPixels,
    zip: {
      maxRatio: config.zipMaxRatio,
      maxExpandedBytes: config.zipMaxExpandedBytes,
      maxEntries: config.zipMaxEntries,
    },
    maxFeatureChars: config.maxFeatureChars,
    vectorWorkerHeapMb: config.vectorWorkerHeapMb,
  };
}

/** The raster caches' sizes under a configuration. */
export function rasterCacheSizesOf(config: Config): RasterCacheSizes {
  return {
    blockCacheBytes: config.rasterBlockCacheBytes,
    openFiles: config.rasterOpenFiles,
    tileCacheBytes: config.rasterTileCacheBytes,
    closeDelayMs: 10_000,
  };
}

/** One OpenID Connect provider of the settings: its id (in the routes' paths), button label, issuer and client. */
export interface OidcProviderSetting {
  id: string;
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** `claim=value`: the users the claim names (equal, or a list holding it) are instance admins. */
  adminClaim?: string;
}

/** What a provider id may be: it is a path segment of the sign-in routes. */
export const OIDC_PROVIDER_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;
const ADMIN_CLAIM_PATTERN = /^[^=\s]+=.+$/;
const PROVIDER_FIELDS = ['id', 'name', 'issuer', 'clientId', 'clientSecret', 'adminClaim'];

/**
 * The identity providers of the settings: `OIDC_ISSUER` and its kin (id `oidc`), then the
 * entries of `OIDC_PROVIDERS`. Throws ConfigError naming what is wrong (loadConfig calls it,
 * so a mistake stops the start).
 */
export function oidcProvidersOf(config: Config): OidcProviderSetting[] {
  const fail: (why: string) => never = (why) => {
    throw new ConfigError(`Invalid configuration: ${why}`);
  };
  const providers: OidcProviderSetting[] = [];
  const single = [config.oidcIssuer, config.oidcClientId, config.oidcClientSecret];
  if (single.some((value) => value !== undefined)) {
    if (single.some((value) => value === undefined))
      fail('OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together: set all three or none');
    providers.push({
      id: 'oidc',
      name: config.oidcName,
      issuer: config.oidcIssuer!,
      clientId: config.oidcClientId!,
      clientSecret: config.oidcClientSecret!,
      ...(config.oidcAdminClaim && { adminClaim: config.oidcAdminClaim }),
    });
  }
  if (config.oidcProviders !== undefined) {
    let list: unknown;
    try {
      list = JSON.parse(config.oidcProviders);
    } catch {
      fail('OIDC_PROVIDERS is not JSON: it must be a list of {id, name, issuer, clientId, clientSecret, adminClaim}');
    }
    if (!Array.isArray(list)) fail('OIDC_PROVIDERS must be a JSON list of {id, name, issuer, clientId, clientSecret}');
    (list as unknown[]).forEach((entry, index) =>
      providers.push(providerEntry(entry, `OIDC_PROVIDERS[${index}]`, fail)),
    );
  }
  if (config.oidcIssuer !== undefined && !config.oidcIssuer.startsWith('https://'))
    fail('OIDC_ISSUER must be an https address (providers are reached over HTTPS only)');
  const seen = new Set<string>();
  for (const provider of providers) {
    if (seen.has(provider.id))
      fail(`identity provider id "${provider.id}" is used twice (OIDC_ISSUER's provider is "oidc")`);
    seen.add(provider.id);
  }
  return providers;
}

function providerEntry(entry: unknown, where: string, fail: (why: string) => never): OidcProviderSetting {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) fail(`${where} must be an object`);
  const fields = entry as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !PROVIDER_FIELDS.includes(key));
  if (unknown.length > 0) fail(`${where} has unknown fields: ${unknown.join(', ')}`);
  for (const key of ['id', 'name', 'issuer', 'clientId', 'clientSecret'])
    if (typeof fields[key] !== 'string' || fields[key] === '') fail(`${where}.${key} is required (a non-empty string)`);
  const { id, name, issuer, clientId, clientSecret, adminClaim } = fields as Record<string, string>;
  if (!OIDC_PROVIDER_ID_PATTERN.test(id!))
    fail(`${where}.id must be 1 to 40 lower-case letters, digits, - or _, starting with a letter or digit`);
  if (name!.length > 100) fail(`${where}.name must be at most 100 characters`);
  if (!/^https:\/\/\S+$/.test(issuer!) || !URL.canParse(issuer!))
    fail(`${where}.issuer must be an https address (providers are reached over HTTPS only)`);
  if (adminClaim !== undefined && (typeof adminClaim !== 'string' || !ADMIN_CLAIM_PATTERN.test(adminClaim)))
    fail(`${where}.adminClaim must be claim=value, e.g. groups=maproom-admins`);
  return {
    id: id!,
    name: name!,
    issuer: issuer!,
    clientId: clientId!,
    clientSecret: clientSecret!,
    ...(adminClaim && { adminClaim }),
  };
}
