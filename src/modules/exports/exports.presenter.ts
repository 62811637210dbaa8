import type { JobRow } from '../../infra/job-queue.js';
import type { ExportJob } from './exports.schemas.js';

/** How long an export job's artifact is kept. */
export const ARTIFACT_LIFETIME_MS = 24 * 3600 * 1000;

/**
 * A complete job is expired once its artifact was removed (by the sweep), and from 24 hours
 * after it finished whether or not the sweep has run yet.
 */
export const hasExpired = (row: JobRow, now = Date.now()) =>
  row.stage === 'complete' &&
  (row.artifact_key === null || (row.finished_at !== null && row.finished_at + ARTIFACT_LIFETIME_MS <= now));

/**
 * The export job's status word for the queue's stage: waiting to start is `pending`; started
 * (also when interrupted by a restart and waiting to resume) is `running`.
 */
function statusOf(row: JobRow): ExportJob['status'] {
  if (hasExpired(row)) return 'expired';
  switch (row.stage) {
    case 'queued':
      return row.attempts > 0 ? 'running' : 'pending';
    case 'processing':
      return 'running';
    case 'complete':
      return 'complete';
    default:
      return 'error';
  }
}

/** The job queue's row as the contract's export job. */
export function presentExportJob(row: JobRow): ExportJob {
  const status = statusOf(row);
  const result = row.result ? (JSON.parse(row.result) as { bytes?: number }) : {};
  return {
    jobId: row.id,
    status,
    bytes: result.bytes ?? null,
    ...(status === 'error' && row.message !== null && { error: row.message }),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    expiresAt: status === 'complete' && row.finished_at !== null ? row.finished_at + ARTIFACT_LIFETIME_MS : null,
  };
}
