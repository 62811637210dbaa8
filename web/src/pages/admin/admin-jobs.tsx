import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import type { AdminJob } from '../../api/types';
import { confirmInPage } from '../../ui/confirm-dialog';
import { AdminTable, Outcome, useAdminActions } from './admin-list';
import { timeText } from './admin-format';

const STATES = ['all', 'waiting', 'running', 'failed'] as const;
type Shown = (typeof STATES)[number];

/** Jobs: waiting, running and failed ones with their errors; retry a failed one, cancel the others. */
export function JobsSection() {
  const [state, setState] = useState<Shown>('all');
  const [jobs, setJobs] = useState<AdminJob[] | null>(null);
  // After an action the list is read again: a retried job is waiting, a cancelled one gone.
  const { error, attempt, done, act } = useAdminActions(() => load());

  const load = (shown: Shown = state) =>
    attempt(async () => {
      const query = shown === 'all' ? {} : { state: shown };
      setJobs((await ok(api.GET('/api/admin/jobs', { params: { query } }))).jobs);
    });
  useEffect(() => void load(), []);
  const retry = (job: AdminJob) =>
    act(async () => {
      await ok(api.POST('/api/admin/jobs/{jobId}/retry', { params: { path: { jobId: job.id } } }));
      return `The ${job.kind} job is queued again.`;
    });
  const cancel = (job: AdminJob) =>
    act(async () => {
      const question = `Cancel the ${job.kind} job of room ${job.roomId}? What it has done so far is removed.`;
      if (!(await confirmInPage(question, 'Cancel job'))) return '';
      await ok(api.POST('/api/admin/jobs/{jobId}/cancel', { params: { path: { jobId: job.id } } }));
      return `The ${job.kind} job is cancelled.`;
    });

  return (
    <section aria-labelledby="jobs-heading">
      <h2 id="jobs-heading">Jobs</h2>
      <div class="row">
        <div class="tabs" role="group" aria-label="Jobs shown">
          {STATES.map((s) => (
            <button
              key={s}
              type="button"
              aria-pressed={state === s}
              onClick={() => {
                setState(s);
                void load(s);
              }}
            >
              {s[0]!.toUpperCase() + s.slice(1)}
            </button>
          ))}
        </div>
        <button type="button" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      <Outcome error={error} done={done} />
      <AdminTable
        label="Jobs"
        columns={['Job', 'Room', 'State', 'Error', 'Queued', 'Actions']}
        items={jobs}
        empty={`No ${state === 'all' ? 'waiting, running or failed' : state} jobs.`}
        row={(job) => (
          <tr key={job.id}>
            <td data-label="Job">
              {job.kind}
              <div class="muted">{job.id}</div>
            </td>
            <td data-label="Room">{job.roomId}</td>
            <td data-label="State">{job.state}</td>
            <td data-label="Error">{job.error ?? '—'}</td>
            <td data-label="Queued">{timeText(job.createdAt)}</td>
            <td class="actions" data-label="Actions">
              {job.state === 'failed' && (
                <button type="button" onClick={() => retry(job)}>
                  Retry
                </button>
              )}
              {(job.state === 'waiting' || job.state === 'running') && (
                <button type="button" class="danger" onClick={() => cancel(job)}>
                  Cancel
                </button>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
