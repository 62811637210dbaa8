import type { Kysely } from 'kysely';

/** The kind of the export jobs' rows in `jobs` (modules/exports). */
const ROOM_EXPORT = 'room-export';

interface ExportJobRow {
  id: string;
  room_id: string;
  status: string;
  include_tiffs: number;
  include_tiles: number;
  bytes: number | null;
  error: string | null;
  artifact_key: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

interface QueueRow {
  id: string;
  stage: string;
  message: string | null;
  actor_kind: string;
  actor_id: string;
  attempts: number;
}

/** The stage, message and progress an export job's status becomes (its queue row may know it failed). */
function stateOf(job: ExportJobRow, queued: QueueRow | undefined) {
  if ((job.status === 'pending' || job.status === 'running') && queued?.stage === 'error')
    return { stage: 'error', message: queued.message, progress: 0 };
  switch (job.status) {
    case 'pending':
      return { stage: 'queued', message: 'Waiting to start', progress: 0 };
    case 'running':
      // Interrupted: the queue resumes it at the next start (or gives it up after too many tries).
      return { stage: 'processing', message: 'Processing', progress: 0 };
    case 'complete':
    case 'expired':
      return { stage: 'complete', message: 'Exported', progress: 100 };
    default:
      return { stage: 'error', message: job.error ?? 'The export failed; try again', progress: 0 };
  }
}

/**
 * Export jobs become jobs like the others: the queue's row is the export job (kind
 * `room-export`, id the export job's uuid, payload its options, result its size), and the
 * queue records when a job started and finished and the artifact it left. The rows of
 * `export_jobs` move into `jobs` (replacing the queue's `export-<uuid>` rows that ran them);
 * an expired job is a complete one without its artifact. `export_jobs` is dropped.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite adds one at a time.
  await db.schema.alterTable('jobs').addColumn('started_at', 'bigint').execute();
  await db.schema.alterTable('jobs').addColumn('finished_at', 'bigint').execute();
  await db.schema.alterTable('jobs').addColumn('artifact_key', 'text').execute();

  const exportJobs = (await db.selectFrom('export_jobs').selectAll().execute()) as ExportJobRow[];
  const queueRows = (await db
    .selectFrom('jobs')
    .select(['id', 'stage', 'message', 'actor_kind', 'actor_id', 'attempts'])
    .where('kind', '=', ROOM_EXPORT)
    .execute()) as QueueRow[];
  const queued = new Map(queueRows.map((row) => [row.id, row]));
  const rooms = (await db.selectFrom('rooms').select(['id', 'created_by']).execute()) as {
    id: string;
    created_by: string;
  }[];
  const creators = new Map(rooms.map((room) => [room.id, room.created_by]));

  const rows = exportJobs.map((job) => {
    const before = queued.get(`export-${job.id}`);
    const { stage, message, progress } = stateOf(job, before);
    const complete = stage === 'complete';
    return {
      id: job.id,
      room_id: job.room_id,
      kind: ROOM_EXPORT,
      stage,
      progress,
      message,
      payload: JSON.stringify({ includeTiffs: job.include_tiffs === 1, includeTiles: job.include_tiles === 1 }),
      result: complete ? JSON.stringify({ bytes: job.bytes }) : null,
      // Who asked is only known to the queue's row; the room's creator stands in without one.
      actor_kind: before?.actor_kind ?? 'user',
      actor_id: before?.actor_id ?? creators.get(job.room_id) ?? '',
      attempts: job.status === 'pending' ? 0 : Math.max(1, before?.attempts ?? 1),
      created_at: job.created_at,
      updated_at: job.finished_at ?? job.started_at ?? job.created_at,
      started_at: job.started_at,
      finished_at: complete || stage === 'error' ? (job.finished_at ?? job.started_at ?? job.created_at) : null,
      artifact_key: job.status === 'complete' ? job.artifact_key : null,
    };
  });
  await db.deleteFrom('jobs').where('kind', '=', ROOM_EXPORT).execute();
  for (let i = 0; i < rows.length; i += 100)
    await db
      .insertInto('jobs')
      .values(rows.slice(i, i + 100))
      .execute();
  await db.schema.dropTable('export_jobs').execute();
  // The artifact sweep's question: complete jobs that finished before a time.
  await db.schema.createIndex('jobs_finished').on('jobs').columns(['stage', 'finished_at']).execute();
}
