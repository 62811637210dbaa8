import type { paths } from '../../web/src/api/schema.js';
import { type Api, CliError } from './client.js';
import type { Output } from './output.js';

/** A job's state as `GET /api/layers/jobs/{jobId}` answers it (results added once complete). */
export type Job = paths['/api/layers/jobs/{jobId}']['get']['responses'][200]['content']['application/json'];
export type ExportJob =
  paths['/api/rooms/{roomId}/export-jobs/{jobId}']['get']['responses'][200]['content']['application/json'];

/** How often a job is asked about. */
const POLL_MS = 500;
const pause = () => new Promise((resolve) => setTimeout(resolve, POLL_MS));

/**
 * Follows a job until it ends, showing its progress and message; resolves with the complete
 * job (its results), or fails with the job's message. Layer uploads and clones are polled at
 * /api/layers/jobs, bulk imports at /api/jobs.
 */
export async function followJob(api: Api, out: Output, jobId: string, kind: 'layers' | 'markers'): Promise<Job> {
  const progress = out.progress(kind === 'layers' ? 'Processing' : 'Importing');
  try {
    for (;;) {
      const params = { params: { path: { jobId } } };
      const job =
        kind === 'layers'
          ? await api.ok(api.client.GET('/api/layers/jobs/{jobId}', params))
          : await api.ok(api.client.GET('/api/jobs/{jobId}', params));
      if (job.stage === 'error') throw new CliError(job.message ?? 'The job failed');
      progress.update(job.progress, 100, job.message ?? job.stage);
      if (job.stage === 'complete') return job;
      await pause();
    }
  } finally {
    progress.stop();
  }
}

/** Follows a room's export job until its artifact is ready; fails with the job's error. */
export async function followExportJob(api: Api, out: Output, roomId: string, jobId: string): Promise<ExportJob> {
  const progress = out.progress('Exporting');
  try {
    for (;;) {
      const job = await api.ok(
        api.client.GET('/api/rooms/{roomId}/export-jobs/{jobId}', { params: { path: { roomId, jobId } } }),
      );
      if (job.status === 'error' || job.status === 'expired')
        throw new CliError(job.error ?? `The export job is ${job.status}`);
      progress.update(job.status === 'complete' ? 100 : 0, 100, job.status);
      if (job.status === 'complete') return job;
      await pause();
    }
  } finally {
    progress.stop();
  }
}
