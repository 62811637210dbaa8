/**
 * A BullMQ worker in a process of its own, for the test that kills one mid-job
 * (test/scale-out/job-queue-bullmq.test.ts): it runs gate jobs that never finish, and prints
 * `ready` once it takes jobs. Usage: node --import tsx job-worker-process.ts <DATABASE_URL> <REDIS_URL>
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Tables } from '../../src/db/tables.js';
import { BullJobQueue } from '../../src/infra/bull-job-queue.js';
import { Gate } from './job-queue-contract.js';
import { recordingLogger } from './logger.js';

const [databaseUrl, redisUrl] = process.argv.slice(2) as [string, string];
const db = new Kysely<Tables>({
  dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl }) }),
});
const queue = new BullJobQueue({ db, log: recordingLogger().logger, redisUrl, concurrency: 1 });
queue.register(Gate, {
  run: async (job) => {
    await job.progress(50, 'Halfway in the child');
    return new Promise(() => undefined); // until the process is killed
  },
});
await queue.start();
console.log('ready');
