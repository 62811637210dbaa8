import type { SessionKeys } from '../../auth/sessions.js';
import { defineDomain, type DomainCore, HOUR_MS, jobKindOf, routes } from '../domain/domain.js';
import { ingestDatabaseOf } from '../layers/vector-ingest.js';
import { ExportJobsRepository } from './export-jobs.repository.js';
import { exportsRoutes } from './exports.routes.js';
import { ExportsService, ROOM_EXPORT_JOB } from './exports.service.js';
import { ROOM_CLONE_JOB, RoomClones, type RoomClonesParts } from './room-clones.js';
import { RoomExporter } from './room-export.js';
import { RoomImport } from './room-import.js';

/**
 * Export, import and clone of whole rooms, walking the domains' exchanges (`sources.exchanges`,
 * in the file's order); the layers' and rasters' ingest steps stage what the file holds of them.
 */
export function exportsDomain(
  core: DomainCore,
  parts: Pick<RoomClonesParts, 'sources' | 'layers' | 'rasters'> & { keys: SessionKeys },
) {
  const { config, database, files, jobs, staged, writePath, receiver, geo, tmpDir } = core;
  const { sources, layers, rasters, keys } = parts;
  const exporter = new RoomExporter(
    { ...sources, concurrency: config.exportConcurrency },
    ingestDatabaseOf(config, database.dialect),
    tmpDir,
    geo,
  );
  const exports = new ExportsService(exporter, new ExportJobsRepository(core.db), files, jobs);
  const roomImport = new RoomImport({
    files,
    staged,
    layers,
    rasters,
    writePath,
    tmpDir,
    geo,
    exchanges: sources.exchanges,
  });
  const clones = new RoomClones({ sources, keys, exporter, layers, rasters, staged, writePath, tmpDir, jobs });
  return defineDomain({
    name: 'exports',
    routes: [routes(exportsRoutes, { exports, roomImport, clones, receiver })],
    jobKinds: [jobKindOf(ROOM_EXPORT_JOB, exports.worker), jobKindOf(ROOM_CLONE_JOB, clones.worker)],
    sweeps: [{ name: 'expired export artifacts', everyMs: HOUR_MS, run: () => exports.sweep() }],
  });
}
