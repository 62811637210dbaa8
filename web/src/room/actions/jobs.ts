import { api, ok } from '../../api/client';
import type { Job } from '../../api/types';

/** How often a running job is asked again. */
const POLL_MS = 700;

/**
 * Follows a job until it ends: resolves with it once complete (its result members with it);
 * a failure rejects with the service's words, else `failed`. While it runs, `onProgress` hears
 * its progress (0..1) and what it is doing in the service's words.
 */
export async function followJob(
  jobId: string,
  failed: string,
  onProgress?: (fraction: number, job: Job) => void,
): Promise<Job & Record<string, unknown>> {
  for (;;) {
    const job = await ok(api.GET('/api/jobs/{jobId}', { params: { path: { jobId } } }));
    if (job.stage === 'error') throw new Error(job.message ?? failed);
    if (job.stage === 'complete') return job as Job & Record<string, unknown>;
    onProgress?.(job.progress / 100, job);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
