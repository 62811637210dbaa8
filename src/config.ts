import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';

/** Every setting of the service, read from environment variables (see README). */
export const ConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  host: Type.String({ minLength: 1, default: '127.0.0.1' }),
  dataDir: Type.String({ minLength: 1, default: './data' }),
  databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  jwtSecret: Type.Optional(Type.String({ minLength: 32 })),
  sessionTtlSeconds: Type.Integer({ minimum: 60, default: 7 * 24 * 3600 }),
  authJwksUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
  authIssuer: Type.Optional(Type.String({ minLength: 1 })),
  authAudience: Type.Optional(Type.String({ minLength: 1 })),
  logLevel: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  storageQuotaBytes: Type.Integer({ minimum: 0, default: 5 * 1024 ** 3 }),
  authRateLimitPerMinute: Type.Integer({ minimum: 1, default: 30 }),
  trustProxy: Type.Boolean({ default: false }),
});

export type Config = Static<typeof ConfigSchema>;

/** Environment variable that feeds each setting. */
const ENV_NAMES: Record<keyof Config, string> = {
  port: 'PORT',
  host: 'HOST',
  dataDir: 'DATA_DIR',
  databaseUrl: 'DATABASE_URL',
  jwtSecret: 'JWT_SECRET',
  sessionTtlSeconds: 'SESSION_TTL_SECONDS',
  authJwksUrl: 'AUTH_JWKS_URL',
  authIssuer: 'AUTH_ISSUER',
  authAudience: 'AUTH_AUDIENCE',
  logLevel: 'LOG_LEVEL',
  storageQuotaBytes: 'STORAGE_QUOTA_BYTES',
  authRateLimitPerMinute: 'AUTH_RATE_LIMIT_PER_MINUTE',
  trustProxy: 'TRUST_PROXY',
};

export class ConfigError extends Error {}

/** Builds the configuration from the environment plus explicit overrides (tests use those). */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<Config> = {},
): Config {
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
  if (config.authJwksUrl && (!config.authIssuer || !config.authAudience)) {
    throw new ConfigError('Invalid configuration: AUTH_ISSUER and AUTH_AUDIENCE are required with AUTH_JWKS_URL');
  }
  return config;
}
