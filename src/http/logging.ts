import type { Config } from '../config.js';

/** Query parameters that carry credentials and must never reach a log line. */
const SECRET_QUERY = /([?&](?:access_token|token)=)[^&]*/gi;

export const scrubUrl = (url: string) => url.replace(SECRET_QUERY, '$1[REDACTED]');

/** pino options: secrets and the Authorization header are redacted. */
export function loggerOptions(config: Config) {
  return {
    level: config.logLevel,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.token', '*.jwtSecret', '*.databaseUrl'],
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
