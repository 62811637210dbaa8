import type { JobContext } from '../../infra/job-queue.js';
import type { IngestProgress } from './ingest.js';

/**
 * An ingest's progress reported on its job, stopped with it. A progress line is a hint: one that
 * waits past busy_timeout for the write lock (the layer's worker writing under heavy load) is
 * skipped, not an unhandled rejection that ends the process; the next one writes.
 */
export function jobProgress(job: Pick<JobContext<unknown>, 'signal' | 'progress'>): IngestProgress {
  return {
    signal: job.signal,
    onProgress: (percent, message) => void job.progress(percent, message).catch(() => undefined),
  };
}
