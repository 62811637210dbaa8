import { InProcessJobQueue } from '../../src/infra/job-queue.js';
import { jobQueueContract } from '../support/job-queue-contract.js';
import { recordingLogger } from '../support/logger.js';

// The in-process queue, on the suite's database (one instance per database: no shared tests).
jobQueueContract('in-process', {
  shared: false,
  make: (db, concurrency) => new InProcessJobQueue(db, recordingLogger().logger, concurrency),
});
