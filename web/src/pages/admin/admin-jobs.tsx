import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import type { AdminJob } from '../../api/types';
import { t } from '../../i18n/index.js';
import { confirmInPage } from '../../ui/confirm-dialog';
import { AdminTable, Outcome, useAdminActions } from './admin-list';
import { timeText } from './admin-format';

const STATES = ['all', 'waiting', 'running', 'failed'] as const;
type Shown = (typeof STATES)[number];

/** A tab's words: which jobs it shows. */
function shownWords(shown: Shown): string {
  switch (shown) {
    case 'all':
      return t('admin:jobs.shown.all');
    case 'waiting':
      return t('admin:jobs.shown.waiting');
    case 'running':
      return t('admin:jobs.shown.running');
    case 'failed':
      return t('admin:jobs.shown.failed');
  }
}

/** What the list says when a tab has no jobs. */
function emptyWords(shown: Shown): string {
  switch (shown) {
    case 'all':
      return t('admin:jobs.empty.all');
    case 'waiting':
      return t('admin:jobs.empty.waiting');
    case 'running':
      return t('admin:jobs.empty.running');
    case 'failed':
      return t('admin:jobs.empty.failed');
  }
}

/** A job's state in the list. */
function stateWords(state: AdminJob['state']): string {
  switch (state) {
    case 'waiting':
      return t('admin:jobs.state.waiting');
    case 'running':
      return t('admin:jobs.state.running');
    case 'failed':
      return t('admin:jobs.state.failed');
    case 'complete':
      return t('admin:jobs.state.complete');
  }
}

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
      return t('admin:jobs.retried', { kind: job.kind });
    });
  const cancel = (job: AdminJob) =>
    act(async () => {
      const question = t('admin:jobs.cancelQuestion', { kind: job.kind, room: job.roomId });
      if (!(await confirmInPage(question, t('admin:jobs.cancelJob')))) return '';
      await ok(api.POST('/api/admin/jobs/{jobId}/cancel', { params: { path: { jobId: job.id } } }));
      return t('admin:jobs.cancelled', { kind: job.kind });
    });

  const columns = {
    job: t('admin:jobs.columns.job'),
    room: t('admin:jobs.columns.room'),
    state: t('admin:jobs.columns.state'),
    error: t('admin:jobs.columns.error'),
    queued: t('admin:jobs.columns.queued'),
    actions: t('admin:columns.actions'),
  };
  return (
    <section aria-labelledby="jobs-heading">
      <h2 id="jobs-heading">{t('admin:tabs.jobs')}</h2>
      <div class="row">
        <div class="tabs" role="group" aria-label={t('admin:jobs.shownLabel')}>
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
              {shownWords(s)}
            </button>
          ))}
        </div>
        <button type="button" onClick={() => void load()}>
          {t('admin:jobs.refresh')}
        </button>
      </div>
      <Outcome error={error} done={done} />
      <AdminTable
        label={t('admin:tabs.jobs')}
        columns={Object.values(columns)}
        items={jobs}
        empty={emptyWords(state)}
        row={(job) => (
          <tr key={job.id}>
            <td data-label={columns.job}>
              {job.kind}
              <div class="muted">{job.id}</div>
            </td>
            <td data-label={columns.room}>{job.roomId}</td>
            <td data-label={columns.state}>{stateWords(job.state)}</td>
            <td data-label={columns.error}>{job.error ?? '—'}</td>
            <td data-label={columns.queued}>{timeText(job.createdAt)}</td>
            <td class="actions" data-label={columns.actions}>
              {job.state === 'failed' && (
                <button type="button" onClick={() => retry(job)}>
                  {t('admin:jobs.retry')}
                </button>
              )}
              {(job.state === 'waiting' || job.state === 'running') && (
                <button type="button" class="danger" onClick={() => cancel(job)}>
                  {t('admin:jobs.cancel')}
                </button>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
