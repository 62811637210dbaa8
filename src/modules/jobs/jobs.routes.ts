import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../http/schemas.js';
import type { ObjectRoom } from '../../http/access-hook.js';
import type { JobQueue, JobRow } from '../../infra/job-queue.js';

const Job = Type.Object(
  {
    jobId: Type.String(),
    kind: Type.String(),
    stage: Type.Enum(['queued', 'processing', 'complete', 'error']),
    progress: Type.Number({ description: 'Percent, 0 to 100' }),
    message: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.Integer(),
    updatedAt: Type.Integer(),
  },
  { additionalProperties: true, description: 'Completed jobs add their results, e.g. markersCreated' },
);

/** The job as polled: its state and, once complete, its results flattened in. */
export function presentJob(row: JobRow) {
  return {
    jobId: row.id,
    kind: row.kind,
    stage: row.stage as 'queued' | 'processing' | 'complete' | 'error',
    progress: row.progress,
    message: row.message,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.result ? (JSON.parse(row.result) as Record<string, unknown>) : {}),
  };
}

export const jobsRoutes: FastifyPluginAsyncTypebox<{ jobs: JobQueue }> = async (app, { jobs }) => {
  const jobRoom: ObjectRoom = { param: 'jobId', what: 'Job', find: async (id) => (await jobs.find(id))?.room_id };
  const params = Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 100 }) });
  const schema = (summary: string) => ({
    tags: ['jobs'],
    security: [{ bearer: [] }],
    summary,
    description: "Needs read on the job's room; any other caller gets 404. Terminal stages: complete, error.",
    params,
    response: { 200: Job, ...errors(401, 404) },
  });

  for (const [url, summary] of [
    ['/api/jobs/:jobId', 'Status of a bulk marker import job'],
    ['/api/layers/jobs/:jobId', 'Status of a layer processing or clone job'],
  ] as const) {
    app.get(url, {
      config: { access: { room: 'read', roomOf: jobRoom } },
      schema: schema(summary),
      handler: async (request) => presentJob((await jobs.find(request.params.jobId))!),
    });
  }
};
