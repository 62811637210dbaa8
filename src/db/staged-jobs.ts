import type { ExpressionBuilder } from 'kysely';
import type { Db } from './database.js';
import type { LiveInstances } from './database-lock.js';

/**
 * Writes that stay invisible until their job is done. A long job (a bulk import, a layer
 * ingest) registers itself here, writes its rows tagged with its id, and in its final
 * write-path transaction unregisters itself: from that commit on, readers see every row at
 * once, with the job's history entry. Rows of a job still registered are hidden from every
 * read; undoing an interrupted job is deleting its rows, which nobody saw.
 */
export class StagedJobs {
  constructor(
    private readonly db: Db,
    private readonly instances: LiveInstances,
  ) {}

  async begin(jobId: string, roomId: string): Promise<void> {
    await this.db
      .insertInto('staged_jobs')
      .values({ job_id: jobId, room_id: roomId, created_at: Date.now(), instance: this.instances.self })
      .onConflict((oc) => oc.column('job_id').doNothing())
      .execute();
  }

  /** Makes the job's rows visible; call inside the final write-path transaction. */
  async publish(trx: Db, jobId: string): Promise<void> {
    await trx.deleteFrom('staged_jobs').where('job_id', '=', jobId).execute();
  }

  /**
   * Stages nobody will finish: that of a job that has ended, and that of a synchronous upload
   * or import (its stage id is no job's) whose instance has stopped (it is no longer live, or
   * the row is older than instance numbers). Stages of queued or running jobs are their jobs'
   * (a job undoes or redoes its own); those of live instances are still being written.
   */
  async interrupted(): Promise<string[]> {
    const live = await this.instances.live();
    const rows = await this.db
      .selectFrom('staged_jobs')
      .leftJoin('jobs', 'jobs.id', 'staged_jobs.job_id')
      .select(['staged_jobs.job_id', 'staged_jobs.instance', 'jobs.stage'])
      .execute();
    return rows
      .filter(({ stage, instance }) =>
        stage === null ? instance === null || !live.has(Number(instance)) : stage === 'complete' || stage === 'error',
      )
      .map((row) => row.job_id);
  }

  /** Forgets the job (after its rows were removed). */
  async end(jobId: string): Promise<void> {
    await this.db.deleteFrom('staged_jobs').where('job_id', '=', jobId).execute();
  }
}

/** The condition "written by no job that is still staged", on a table's job-id column. */
export const notStaged = (column: string) => (eb: ExpressionBuilder<any, any>) =>
  eb.or([eb(eb.ref(column), 'is', null), eb(eb.ref(column), 'not in', eb.selectFrom('staged_jobs').select('job_id'))]);
