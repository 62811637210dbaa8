import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { StagedJobs } from './db/staged-jobs.js';
import { BullJobQueue } from './infra/bull-job-queue.js';
import { BullScheduler } from './infra/bull-scheduler.js';
import { InProcessJobQueue, type JobQueue } from './infra/job-queue.js';
import { InProcessScheduler, type Scheduler } from './infra/scheduler.js';
import { ROOM_CLONE_JOB, type RoomClones } from './modules/exports/room-clones.js';
import { ROOM_EXPORT_JOB, type ExportsService } from './modules/exports/exports.service.js';
import type { ChunkedUploads } from './modules/ingest/chunked-uploads.js';
import { LAYER_UPLOAD_JOB, type Uploads } from './modules/ingest/uploads.js';
import { BULK_IMPORT_JOB, type BulkImport } from './modules/markers/bulk-import.js';
import type { PasswordReset } from './modules/users/password-reset.service.js';
import type { UsersService } from './modules/users/users.service.js';
import type { OidcSignIn } from './modules/oidc/oidc.service.js';

/**
 * The service's background work in one place: every kind of job with the worker that runs
 * it, and every sweep with its period. A new kind or sweep is added here (docs/patterns.md,
 * "Jobs and sweeps"); the queue refuses to start while a waiting job's kind has no worker.
 */

/** Units of the sweeps' periods. */
const HOUR_MS = 3600_000;
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
export function jobSystemOf(config: Config, db: Db, log: FastifyBaseLogger, concurrency: number): JobSystem {
  const runsJobs = config.instanceRole !== 'http';
  if (!config.redisUrl) {
    return { jobs: new InProcessJobQueue(db, log, concurrency), sweeps: new InProcessScheduler(log), runsJobs };
  }
  return {
    jobs: new BullJobQueue({ db, log, redisUrl: config.redisUrl, concurrency: runsJobs ? concurrency : 0 }),
    sweeps: new BullScheduler(config.redisUrl, log),
    runsJobs,
  };
}

export interface JobWorkers {
  bulkImport: BulkImport;
  layerUploads: Uploads;
  exports: ExportsService;
  clones: RoomClones;
}

/** Every kind of job, with its worker. */
export function registerJobKinds(queue: JobQueue, workers: JobWorkers): void {
  queue.register(BULK_IMPORT_JOB, workers.bulkImport.worker);
  queue.register(LAYER_UPLOAD_JOB, workers.layerUploads.worker);
  queue.register(ROOM_EXPORT_JOB, workers.exports.worker);
  queue.register(ROOM_CLONE_JOB, workers.clones.worker);
}

/** What removes a stage's rows and files (and its `staged_jobs` row): each domain that stages. */
export interface StageUndo {
  undo(stageId: string): Promise<void>;
}

/**
 * Undoes every stage that nobody will finish (a synchronous upload or import of an instance
 * that has stopped, StagedJobs.interrupted): nothing of it was ever visible. Runs at start,
 * before serving and before the queue resumes its jobs (which undo or redo their own
 * stages), and as a sweep (an instance that crashed may never start again).
 */
export async function undoInterruptedStaging(staged: StagedJobs, domains: StageUndo[]): Promise<number> {
  const stageIds = await staged.interrupted();
  for (const stageId of stageIds) {
    for (const domain of domains) await domain.undo(stageId);
    await staged.end(stageId);
  }
  return stageIds.length;
}

export interface Sweepers {
  chunked: ChunkedUploads;
  exports: ExportsService;
  /** undoInterruptedStaging with the service's stages and domains. */
  undoStaging: () => Promise<number>;
  users: UsersService;
  passwordReset: PasswordReset;
  /** Sign-ins with identity providers that were started and never finished. */
  oidcFlows: Pick<OidcSignIn, 'sweep'>;
}

/** Every sweep, run at start and then every period. */
export function scheduleSweeps(scheduler: Scheduler, sweepers: Sweepers): void {
  scheduler.add({ name: 'old upload chunks', everyMs: HOUR_MS, run: () => sweepers.chunked.sweep() });
  scheduler.add({ name: 'expired export artifacts', everyMs: HOUR_MS, run: () => sweepers.exports.sweep() });
  scheduler.add({
    name: 'interrupted staging',
    everyMs: 10 * MINUTE_MS,
    run: async () => void (await sweepers.undoStaging()),
  });
  scheduler.add({
    name: 'revocations of expired sessions',
    everyMs: HOUR_MS,
    run: () => sweepers.users.sweepRevokedSessions(),
  });
  scheduler.add({ name: 'old password-reset links', everyMs: HOUR_MS, run: () => sweepers.passwordReset.sweep() });
  scheduler.add({
    name: 'unfinished identity provider sign-ins',
    everyMs: HOUR_MS,
    run: () => sweepers.oidcFlows.sweep(),
  });
}
