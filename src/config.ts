import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';

/** Every setting of the service, read from environment variables (see README). */
export const ConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  host: Type.String({ minLength: 1, default: '127.0.0.1' }),
  dataDir: Type.String({ minLength: 1, default: './data' }),
  /** Uploads in progress; emptied at start. Default DATA_DIR/tmp (each instance needs its own). */
  tmpDir: Type.Optional(Type.String({ minLength: 1 })),
  databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  jwtSecret: Type.Optional(Type.String({ minLength: 32 })),
  sessionTtlSeconds: Type.Integer({ minimum: 60, default: 7 * 24 * 3600 }),
  authJwksUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
  authIssuer: Type.Optional(Type.String({ minLength: 1 })),
  authAudience: Type.Optional(Type.String({ minLength: 1 })),
  logLevel: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  storageQuotaBytes: Type.Integer({ minimum: 0, default: 5 * 1024 ** 3 }),
  authRateLimitPerMinute: Type.Integer({ minimum: 1, default: 30 }),
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
  sessionTtlSeconds: 'SESSION_TTL_SECONDS',
  authJwksUrl: 'AUTH_JWKS_URL',
  authIssuer: 'AUTH_ISSUER',
  authAudience: 'AUTH_AUDIENCE',
  logLevel: 'LOG_LEVEL',
  storageQuotaBytes: 'STORAGE_QUOTA_BYTES',
  authRateLimitPerMinute: 'AUTH_RATE_LIMIT_PER_MINUTE',
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
  if (config.authJwksUrl && (!config.authIssuer || !config.authAudience)) {
    throw new ConfigError('Invalid configuration: AUTH_ISSUER and AUTH_AUDIENCE are required with AUTH_JWKS_URL');
  }
  return config;
}

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
