import { CronExpressionParser } from 'cron-parser';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Periodic upkeep (old chunks, expired exports, backups): safe to run at any time, and again.
 * It runs at start and then every `everyMs`, or only at the times of a `cron` pattern (UTC).
 */
export type Sweep = {
  /** Names the sweep in the log. */
  name: string;
  run(): Promise<void>;
} & ({ everyMs: number } | { cron: string });

/** The longest wait a timer takes (about 24.8 days); a longer one is waited in steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** When a cron pattern (UTC) next fires after now. */
export function nextCronTime(pattern: string, after = new Date()): number {
  return CronExpressionParser.parse(pattern, { currentDate: after, tz: 'UTC' }).next().getTime();
}

/** Runs the sweeps: in-process timers now, repeatable jobs of a shared queue later. */
export interface Scheduler {
  /** Adds a sweep (before `start`). */
  add(sweep: Sweep): void;
  /** Runs every sweep once, then each every `everyMs`; a failure is logged, never thrown. */
  start(): Promise<void>;
  /** Stops the timers and waits for a running sweep to end. */
  close(): Promise<void>;
}

export class InProcessScheduler implements Scheduler {
  private readonly sweeps: Sweep[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly log: FastifyBaseLogger) {}

  add(sweep: Sweep): void {
    if (this.sweeps.some((s) => s.name === sweep.name)) throw new Error(`The sweep ${sweep.name} is added twice`);
    this.sweeps.push(sweep);
  }

  async start(): Promise<void> {
    for (const sweep of this.sweeps) if ('everyMs' in sweep) await this.runOnce(sweep);
    for (const sweep of this.sweeps) {
      if (this.closed) return;
      if ('everyMs' in sweep) this.timers.add(setInterval(() => void this.runOnce(sweep), sweep.everyMs).unref());
      else this.atNextTime(sweep, nextCronTime(sweep.cron));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    await Promise.allSettled(this.running.values());
  }

  /** Runs a cron sweep at `time`, then at its next time after that. */
  private atNextTime(sweep: Sweep & { cron: string }, time: number): void {
    if (this.closed) return;
    const wait = Math.min(Math.max(0, time - Date.now()), LONGEST_TIMER_MS);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (Date.now() < time) return this.atNextTime(sweep, time);
      void this.runOnce(sweep).finally(() => this.atNextTime(sweep, nextCronTime(sweep.cron)));
    }, wait).unref();
    this.timers.add(timer);
  }

  /** One run of the sweep, unless the previous one is still going or the scheduler is closed. */
  private runOnce(sweep: Sweep): Promise<void> {
    if (this.closed) return Promise.resolve();
    const busy = this.running.get(sweep.name);
    if (busy) return busy;
    const run = sweep
      .run()
      .catch((error: unknown) => this.log.error({ err: error, sweep: sweep.name }, `sweep ${sweep.name} failed`))
      .finally(() => this.running.delete(sweep.name));
    this.running.set(sweep.name, run);
    return run;
  }
}
