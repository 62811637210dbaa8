import { Queue, Worker } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import { bullmqConnection } from './bullmq.js';
import type { Scheduler, Sweep } from './scheduler.js';

const QUEUE_NAME = 'sweeps';

/**
 * Sweeps run once per period for the whole deployment, not once per instance: each sweep is
 * a BullMQ job scheduler (`every` its period or its cron `pattern`, keyed by its name), whose jobs any instance
 * running this scheduler takes, one of them each time. Starting again (another instance, a
 * restart) updates the same schedulers; one no longer listed is removed.
 */
export class BullScheduler implements Scheduler {
  private readonly sweeps = new Map<string, Sweep>();
  private readonly queue: Queue;
  private worker?: Worker;

  constructor(
    private readonly redisUrl: string,
    private readonly log: FastifyBaseLogger,
  ) {
    const { connection, prefix } = bullmqConnection(redisUrl);
    this.queue = new Queue(QUEUE_NAME, { connection, prefix });
    this.queue.on('error', (error) => log.error({ err: error }, 'sweeps: Redis error'));
  }

  add(sweep: Sweep): void {
    if (this.sweeps.has(sweep.name)) throw new Error(`The sweep ${sweep.name} is added twice`);
    this.sweeps.set(sweep.name, sweep);
  }

  async start(): Promise<void> {
    for (const sweep of this.sweeps.values()) {
      await this.queue.upsertJobScheduler(
        sweep.name,
        'everyMs' in sweep ? { every: sweep.everyMs } : { pattern: sweep.cron, tz: 'UTC' },
        { name: sweep.name, opts: { removeOnComplete: true, removeOnFail: true } },
      );
    }
    for (const scheduler of await this.queue.getJobSchedulers()) {
      if (!this.sweeps.has(scheduler.key)) await this.queue.removeJobScheduler(scheduler.key);
    }
    const { connection, prefix } = bullmqConnection(this.redisUrl);
    this.worker = new Worker(QUEUE_NAME, (job) => this.run(job.name), {
      connection: { ...connection, maxRetriesPerRequest: null },
      prefix,
    });
    this.worker.on('error', (error) => this.log.error({ err: error }, 'sweeps: Redis error'));
    await this.worker.waitUntilReady();
  }

  async close(): Promise<void> {
    // The worker first (a running job goes back to waiting), then the queue; both even when
    // Redis is gone (closing then fails: there is nothing left to close).
    // A connection that cannot say goodbye is dropped, so that nothing keeps reconnecting.
    await this.worker?.close().catch(() => this.worker?.disconnect());
    await this.queue.close().catch(() => this.queue.disconnect());
  }

  private async run(name: string): Promise<void> {
    const sweep = this.sweeps.get(name);
    if (!sweep) return; // listed by a newer version of the service
    try {
      await sweep.run();
    } catch (error) {
      this.log.error({ err: error, sweep: name }, `sweep ${name} failed`);
    }
  }
}
