import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';

/**
 * Query parameters that carry credentials and must never reach a log line (`code` and `state`:
 * an identity provider's callback; `key`: an embed page's key).
 */
const SECRET_QUERY = /([?&](?:access_token|token|code|state|key)=)[^&]*/gi;
/** Credentials wherever they appear (also under an encoded parameter name): room tokens, embed keys, JWTs. */
const SECRET_VALUES = /(mr[te]_)[A-Za-z0-9_-]+|eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

export const scrubUrl = (url: string) =>
  url
    .replace(SECRET_QUERY, '$1[REDACTED]')
    .replace(SECRET_VALUES, (_m, prefix?: string) => `${prefix ?? ''}[REDACTED]`);

/** pino options: secrets and the Authorization header are redacted. */
export function loggerOptions(config: Config) {
  return {
    level: config.logLevel,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.password',
        '*.token',
        '*.jwtSecret',
        '*.metricsToken',
        '*.oidcClientSecret',
        '*.databaseUrl',
        '*.redisUrl',
        '*.smtpUrl',
      ],
      censor: '[REDACTED]',
    },
    serializers: {
      req: (request: { method: string; url: string; ip?: string }) => ({
        method: request.method,
        url: scrubUrl(request.url),
        remoteAddress: request.ip,
      }),
    },
  };
}

/**
 * Fastify's `genReqId`: request ids (`reqId` in a request's log lines, and in those of the jobs
 * it queues) made of a random prefix of this process and a counter, as cheap as Fastify's own
 * counter but apart across instances and restarts: a job may run, and log, on another instance.
 */
export function requestIds(): () => string {
  const prefix = randomBytes(4).toString('hex');
  let count = 0;
  return () => `${prefix}-${(++count).toString(36)}`;
}

type Logger = FastifyBaseLogger;
/** Fastify's logger is pino, which says whether a level is logged (another logger: assume so). */
const enabled = (logger: Logger, level: string) =>
  (logger as Partial<{ isLevelEnabled(level: string): boolean }>).isLevelEnabled?.(level) ?? true;
type ChildOptions = Parameters<Logger['child']>[1];
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * A request's logger, made when the request logs something: pino's child (the request id
 * bound and serialised, the redaction rebuilt) cost about 4% of a marker read, and at the
 * levels where requests are not logged (warn and above) most requests log nothing.
 */
class LazyChild {
  private made?: Logger;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: ChildOptions,
  ) {}

  get level(): string {
    return this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  child(bindings: Record<string, unknown>, options?: ChildOptions): Logger {
    return this.logger().child(bindings, options);
  }

  private logger(): Logger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  static {
    for (const level of LEVELS) {
      Object.defineProperty(LazyChild.prototype, level, {
        value(this: LazyChild, ...args: unknown[]) {
          if (this.made === undefined && !enabled(this.parent, level)) return;
          (this.logger()[level] as (...args: unknown[]) => void)(...args);
        },
      });
    }
  }
}

/**
 * Fastify's `childLoggerFactory`: pino's child at once where every request logs (info and
 * below, or a route's own level), else a `LazyChild` that becomes one on its first line.
 */
export function requestLogger(parent: Logger, bindings: Record<string, unknown>, options: ChildOptions): Logger {
  if (options?.level !== undefined || enabled(parent, 'info')) return parent.child(bindings, options);
  return new LazyChild(parent, bindings, options) as unknown as Logger;
}
