import type { Db } from '../../db/database.js';
import type { JobCaller, JobRow } from '../../infra/job-queue.js';

/** The kind of an export job in the job queue (its payload: ExportJobPayload in exports.service.ts). */
export const ROOM_EXPORT_KIND = 'room-export';

/**
 * Export jobs are rows of the job queue's `jobs` table of kind `room-export`; the queue runs
 * them, this reads them as export jobs, always addressed by room and id (another room's job
 * id is not found), and removes their artifacts.
 */
export class ExportJobsRepository {
  constructor(private readonly db: Db) {}

  private exportJobs() {
    return this.db.selectFrom('jobs').selectAll().where('kind', '=', ROOM_EXPORT_KIND);
  }

  find(roomId: string, id: string): Promise<JobRow | undefined> {
    return this.exportJobs().where('room_id', '=', roomId).where('id', '=', id).executeTakeFirst();
  }

  /** The room's jobs not yet started (a second request for the same export joins one). */
  notStarted(roomId: string): Promise<JobRow[]> {
    return this.exportJobs()
      .where('room_id', '=', roomId)
      .where('stage', '=', 'queued')
      .where('attempts', '=', 0)
      .orderBy('created_at')
      .execute();
  }

  /**
   * The caller's export jobs, in any room, that hold or will hold an artifact: waiting or
   * running, or complete with an artifact that finished at or after `keptSince`.
   */
  held(actor: JobCaller, keptSince: number): Promise<JobRow[]> {
    return this.exportJobs()
      .where('actor_kind', '=', actor.kind)
      .where('actor_id', '=', actor.id)
      .where((eb) =>
        eb.or([
          eb('stage', 'in', ['queued', 'processing']),
          eb.and([
            eb('stage', '=', 'complete'),
            eb('artifact_key', 'is not', null),
            eb('finished_at', '>=', keptSince),
          ]),
        ]),
      )
      .execute();
  }

  /** Complete jobs that finished before `before` and still have their artifacts: due for removal. */
  artifactsFinishedBefore(before: number): Promise<JobRow[]> {
    return this.exportJobs()
      .where('stage', '=', 'complete')
      .where('finished_at', '<', before)
      .where('artifact_key', 'is not', null)
      .execute();
  }

  /** The job keeps its state and size, without its artifact (it reads as expired). */
  async forgetArtifact(id: string): Promise<void> {
    await this.db.updateTable('jobs').set({ artifact_key: null }).where('id', '=', id).execute();
  }
}
