import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { StagedJobs } from './db/staged-jobs.js';
import { InProcessJobQueue, type JobQueue } from './infra/job-queue.js';
import type { JobObserver } from './infra/metrics.js';
import { InProcessScheduler, type Scheduler } from './infra/scheduler.js';
import type { DomainModule } from './modules/domain/domain.js';

/**
 * The service's background work: the job system, and every kind of job, sweep and stage the
 * domains' descriptors declare (`jobKinds`, `sweeps`, `stages`; docs/patterns.md, "Jobs and
 * sweeps"). The queue refuses to start while a waiting job's kind has no worker.
 */

const MINUTE_MS = 60_000;

export interface JobSystem {
  jobs: JobQueue;
  sweeps: Scheduler;
  /** Whether this instance runs jobs and sweeps (INSTANCE_ROLE all or jobs); an `http` one only queues. */
  runsJobs: boolean;
}

/**
 * The job queue and the sweeps' scheduler: in this process without REDIS_URL (one instance
 * per database), on BullMQ with it, shared by every instance (docs/decisions.md, "Jobs on
 * BullMQ"). `concurrency` is how many jobs this instance runs at once.
 */
export async function jobSystemOf(
  config: Config,
  db: Db,
  log: FastifyBaseLogger,
  concurrency: number,
  observer?: JobObserver,
): Promise<JobSystem> {
  const runsJobs = config.instanceRole !== 'http';
  if (!config.redisUrl) {
    return {
      jobs: new InProcessJobQueue(db, log, concurrency, observer),
      sweeps: new InProcessScheduler(log),
      runsJobs,
    };
  }
  // Loaded only with Redis: BullMQ and ioredis are memory a single process does not need.
  const [{ BullJobQueue }, { BullScheduler }] = await Promise.all([
    import('./infra/bull-job-queue.js'),
    import('./infra/bull-scheduler.js'),
  ]);
  return {
    jobs: new BullJobQueue({ db, log, redisUrl: config.redisUrl, concurrency: runsJobs ? concurrency : 0, observer }),
    sweeps: new BullScheduler(config.redisUrl, log),
    runsJobs,
  };
}

/** Every kind of job the domains queue, with its worker. */
export function registerJobKinds(queue: JobQueue, domains: DomainModule[]): void {
  for (const domain of domains) for (const register of domain.jobKinds ?? []) register(queue);
}

/**
 * Undoes every stage that nobody will finish (a synchronous upload or import of an instance
 * that has stopped, StagedJobs.interrupted) through each domain that stages: nothing of it
 * was ever visible. Runs at start, before serving and before the queue resumes its jobs
 * (which undo or redo their own stages), and as a sweep (an instance that crashed may never
 * start again).
 */
export async function undoInterruptedStaging(staged: StagedJobs, domains: DomainModule[]): Promise<number> {
  const stageIds = await staged.interrupted();
  for (const stageId of stageIds) {
    for (const domain of domains) await domain.stages?.undo(stageId);
    await staged.end(stageId);
  }
  return stageIds.length;
}

/** Every sweep, run at start and then every period: the interrupted stages', then each domain's. */
export function scheduleSweeps(
  scheduler: Scheduler,
  domains: DomainModule[],
  undoStaging: () => Promise<number>,
): void {
  scheduler.add({
    name: 'interrupted staging',
    everyMs: 10 * MINUTE_MS,
    run: async () => void (await undoStaging()),
  });
  for (const domain of domains) for (const sweep of domain.sweeps ?? []) scheduler.add(sweep);
}
