import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { CachedAccess } from '../../auth/access-source.js';
import { type Config, type GeoLimits, geoLimitsOf, tmpDirOf } from '../../config.js';
import type { Database, Db } from '../../db/database.js';
import { StagedJobs } from '../../db/staged-jobs.js';
import type { UploadReceiver } from '../../http/uploads.js';
import type { JobKind, JobQueue, JobWorker } from '../../infra/job-queue.js';
import type { LiveHub } from '../../infra/live-hub.js';
import type { Sweep } from '../../infra/scheduler.js';
import type { Exchange } from '../exchange/exchange.js';
import { StoredFiles } from '../files/stored-files.js';
import type { Restorable } from '../history/restorable.js';
import { WritePath } from '../history/write-path.js';
import type { ContentTable } from './room-content.js';

export type { Exchange };

/** An hour, the unit of most sweeps' periods (`sweeps[].everyMs`). */
export const HOUR_MS = 3600_000;

/**
 * What a domain brings to the service, declared once in its own folder
 * (`<domain>/<domain>.module.ts`): app.ts registers the routes, hands the exchanges to export,
 * import and clone, the restorables to the history's restore and the content to `RoomContent`;
 * src/jobs.ts registers the job kinds and sweeps and undoes the stages a stopped instance left.
 */
export interface DomainModule {
  /** The domain's name (its folder, or its part of the folder: `bulk-import` of markers/). */
  name: string;
  /** Its routes, registered in this order. */
  routes?: Routes[];
  /** Its tables of a room export, in the file's order (see "Export and restore" in docs/patterns.md). */
  exchanges?: Exchange[];
  /** How history's kept state of its objects is put back. */
  restorables?: Restorable[];
  /** Its kinds of room content, for a room's `counts` and `clear`. */
  content?: ContentTable[];
  /** The kinds of job it queues, each with its worker. */
  jobKinds?: JobKindOf[];
  /** Its periodic upkeep. */
  sweeps?: Sweep[];
  /** What removes the rows and files it staged under a stage id (an upload, an import). */
  stages?: StageUndo;
  /** What it closes when the service stops (after the jobs and sweeps, before the database). */
  close?(): Promise<void>;
}

/**
 * The domains' exchanges in the file's order (`inFile`, by name), which fixes the order of a
 * room export's tables; a domain with exchanges that `inFile` does not name is refused.
 */
export function exchangesInFileOrder(domains: DomainModule[], inFile: string[]): Exchange[] {
  const unlisted = domains.filter((d) => d.exchanges && !inFile.includes(d.name)).map((d) => d.name);
  if (unlisted.length > 0) throw new Error(`The file's order leaves out the exchanges of ${unlisted.join(', ')}`);
  return inFile.flatMap((name) => domains.find((d) => d.name === name)?.exchanges ?? []);
}

/** A domain's descriptor with what other domains are built with (`provides`: its repository, its presenter...). */
export type Domain<Provides = object> = DomainModule & { provides: Provides };

export function defineDomain<Provides = object>(
  module: DomainModule,
  provides: Provides = {} as Provides,
): Domain<Provides> {
  return { ...module, provides };
}

/** What every domain may be built with: the database, the write path, stored files, staging, jobs, uploads, access. */
export interface DomainCore {
  config: Config;
  database: Database;
  db: Db;
  writePath: WritePath;
  files: StoredFiles;
  staged: StagedJobs;
  jobs: JobQueue;
  receiver: UploadReceiver;
  access: CachedAccess;
  /** The geo engine's limits, from the settings. */
  geo: GeoLimits;
  /** Where uploads and files in progress are kept. */
  tmpDir: string;
}

/** The core from the infrastructure: the write path publishes to `live`, stored files are kept in `blobs`. */
export function domainCoreOf(
  parts: Pick<DomainCore, 'config' | 'database' | 'jobs' | 'receiver' | 'access'> & {
    live: LiveHub;
    /** The blob store, reached through StoredFiles only. */
    blobs: ConstructorParameters<typeof StoredFiles>[1];
  },
): DomainCore {
  const { config, database, jobs, receiver, access } = parts;
  const { db } = database;
  return {
    config,
    database,
    db,
    writePath: new WritePath(database, parts.live),
    files: new StoredFiles(db, parts.blobs, config.storageQuotaBytes),
    staged: new StagedJobs(db, database.instances),
    jobs,
    receiver,
    access,
    geo: geoLimitsOf(config),
    tmpDir: tmpDirOf(config),
  };
}

/** A plugin of routes with its options, registered by app.ts. */
export type Routes = (app: FastifyInstance) => Promise<unknown>;

export function routes<Options extends Record<string, unknown>>(
  plugin: FastifyPluginAsyncTypebox<Options>,
  options: Options,
): Routes {
  return async (app) => app.register(plugin as never, options);
}

/** A job kind with its worker, registered with the queue by src/jobs.ts. */
export type JobKindOf = (queue: JobQueue) => void;

export function jobKindOf<T extends TSchema>(kind: JobKind<T>, worker: JobWorker<Static<T>>): JobKindOf {
  return (queue) => queue.register(kind, worker);
}

/** What removes a stage's rows and files (and its `staged_jobs` row): each domain that stages. */
export interface StageUndo {
  undo(stageId: string): Promise<void>;
}
