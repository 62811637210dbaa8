import type { FastifyBaseLogger } from 'fastify';

/** Periodic upkeep (old chunks, expired exports): safe to run at any time, and again. */
export interface Sweep {
  /** Names the sweep in the log. */
  name: string;
  /** How often it runs after the first run at start. */
  everyMs: number;
  run(): Promise<void>;
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
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly log: FastifyBaseLogger) {}

  add(sweep: Sweep): void {
    if (this.sweeps.some((s) => s.name === sweep.name)) throw new Error(`The sweep ${sweep.name} is added twice`);
    this.sweeps.push(sweep);
  }

  async start(): Promise<void> {
    for (const sweep of this.sweeps) await this.runOnce(sweep);
    for (const sweep of this.sweeps) {
      if (this.closed) return;
      this.timers.push(setInterval(() => void this.runOnce(sweep), sweep.everyMs).unref());
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    await Promise.allSettled(this.running.values());
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
