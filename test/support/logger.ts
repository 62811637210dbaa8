import type { FastifyBaseLogger } from 'fastify';

/** A logger that keeps what it is told (the queue's and the scheduler's only channel for failures). */
export function recordingLogger() {
  const lines: { level: string; object: unknown; message: string }[] = [];
  const at =
    (level: string) =>
    (object: unknown, message = '') =>
      void lines.push({ level, object, message });
  const logger = {
    level: 'info',
    fatal: at('fatal'),
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    silent: () => undefined,
    child: () => logger,
  };
  return { lines, logger: logger as unknown as FastifyBaseLogger };
}
