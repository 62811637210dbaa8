import type { Kysely } from 'kysely';

/**
 * The id of the request that queued a job (Fastify's request id, as the request's log lines
 * carry it), so that the job's own log lines carry it too; null for jobs queued otherwise.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('request_id', 'text').execute();
}
