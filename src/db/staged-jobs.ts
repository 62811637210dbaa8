import type { ExpressionBuilder } from 'kysely';
import type { Db } from './database.js';

/**
 * Writes that stay invisible until their job is done. A long job (a bulk import, a layer
 * ingest) registers itself here, writes its rows tagged with its id, and in its final
 * write-path transaction unregisters itself: from that commit on, readers see every row at
 * once, with the job's history entry. Rows of a job still registered are hidden from every
 * read; undoing an interrupted job is deleting its rows, which nobody saw.
 */
export class StagedJobs {
  constructor(private readonly db: Db) {}

  async begin(jobId: string, roomId: string): Promise<void> {
    await this.db
      .insertInto('staged_jobs')
      .values({ job_id: jobId, room_id: roomId, created_at: Date.now() })
      .onConflict((oc) => oc.column('job_id').doNothing())
      .execute();
  }

  /** Makes the job's rows visible; call inside the final write-path transaction. */
  async publish(trx: Db, jobId: string): Promise<void> {
    await trx.deleteFrom('staged_jobs').where('job_id', '=', jobId).execute();
  }

  /**
   * Stages no job will resume: those of a synchronous upload or import (their stage id is no
   * job's) or of a job that has ended, left by a process that stopped mid-way. Call at start,
   * before any job runs or request is served.
   */
  async interrupted(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('staged_jobs')
      .select('job_id')
      .where((eb) =>
        eb('job_id', 'not in', eb.selectFrom('jobs').select('id').where('stage', 'in', ['queued', 'processing'])),
      )
      .execute();
    return rows.map((r) => r.job_id);
  }

  /** Forgets the job (after its rows were removed). */
  async end(jobId: string): Promise<void> {
    await this.db.deleteFrom('staged_jobs').where('job_id', '=', jobId).execute();
  }
}

/** The condition "written by no job that is still staged", on a table's job-id column. */
export const notStaged = (column: string) => (eb: ExpressionBuilder<any, any>) =>
  eb.or([eb(eb.ref(column), 'is', null), eb(eb.ref(column), 'not in', eb.selectFrom('staged_jobs').select('job_id'))]);
