import { defineDomain, type DomainCore, HOUR_MS, jobKindOf, routes } from '../domain/domain.js';
import { ChunkedUploads } from './chunked-uploads.js';
import { chunkedUploadsRoutes } from './chunked-uploads.routes.js';
import { Ingest } from './ingest.js';
import { UploadChunksRepository } from './upload-chunks.repository.js';
import { LAYER_UPLOAD_JOB, Uploads, type UploadsOptions } from './uploads.js';
import { uploadsRoutes } from './uploads.routes.js';

/**
 * The one ingest of uploaded files, with the steps of the domains that take files (vector
 * layers, rasters): uploads in one request or in a job, and uploads in chunks (two
 * descriptors, as their routes stand apart).
 */
export function ingestDomains(core: DomainCore, parts: Pick<UploadsOptions, 'steps' | 'styleProblem'>) {
  const { db, files, jobs, staged, writePath, receiver, config } = core;
  const uploads = new Uploads({
    files,
    jobs,
    ingest: new Ingest(staged, writePath),
    ...parts,
    syncMaxBytes: config.uploadSyncMaxBytes,
  });
  const chunked = new ChunkedUploads(new UploadChunksRepository(db), files, uploads);
  return {
    uploads: defineDomain({
      name: 'uploads',
      routes: [routes(uploadsRoutes, { uploads, receiver })],
      jobKinds: [jobKindOf(LAYER_UPLOAD_JOB, uploads.worker)],
    }),
    chunkedUploads: defineDomain({
      name: 'chunked-uploads',
      routes: [routes(chunkedUploadsRoutes, { chunked, receiver })],
      sweeps: [{ name: 'old upload chunks', everyMs: HOUR_MS, run: () => chunked.sweep() }],
    }),
  };
}
