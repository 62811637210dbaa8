import type { Config } from '../config.js';

/** Query parameters that carry credentials and must never reach a log line. */
const SECRET_QUERY = /([?&](?:access_token|token)=)[^&]*/gi;
/** Credentials wherever they appear (also under an encoded parameter name). */
const SECRET_VALUES = /(mrt_)[A-Za-z0-9_-]+|eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

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
