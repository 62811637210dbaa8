import { InProcessJobQueue } from '../../src/infra/job-queue.js';
import { jobQueueContract } from '../support/job-queue-contract.js';

// The in-process queue, on the suite's database (one instance per database: no shared tests).
jobQueueContract('in-process', {
  shared: false,
  make: (db, concurrency, log) => new InProcessJobQueue(db, log, concurrency),
});
