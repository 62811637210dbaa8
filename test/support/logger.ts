import type { FastifyBaseLogger } from 'fastify';

/** A line a recording logger was told, with the bindings of the child that logged it. */
export interface RecordedLine {
  level: string;
  object: unknown;
  message: string;
  bindings: Record<string, unknown>;
}

/** A logger that keeps what it is told (the queue's and the scheduler's only channel for failures); children add their bindings. */
export function recordingLogger() {
  const lines: RecordedLine[] = [];
  const make = (bindings: Record<string, unknown>): unknown => {
    const at =
      (level: string) =>
      (object: unknown, message = '') =>
        void lines.push({ level, object, message, bindings });
    return {
      level: 'info',
      fatal: at('fatal'),
      error: at('error'),
      warn: at('warn'),
      info: at('info'),
      debug: at('debug'),
      trace: at('trace'),
      silent: () => undefined,
      child: (more: Record<string, unknown>) => make({ ...bindings, ...more }),
    };
  };
  return { lines, logger: make({}) as FastifyBaseLogger };
}
