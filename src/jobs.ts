import type { Scheduler } from './infra/scheduler.js';
import type { ExportsService } from './modules/exports/exports.service.js';
import type { ChunkedUploads } from './modules/ingest/chunked-uploads.js';

/** The service's background work in one place: every sweep with its period (docs/patterns.md, "Jobs and sweeps"). */

const HOUR_MS = 3600_000;

export interface Sweepers {
  chunked: ChunkedUploads;
  exports: ExportsService;
}

/** Every sweep, run at start and then hourly. */
export function scheduleSweeps(scheduler: Scheduler, sweepers: Sweepers): void {
  scheduler.add({ name: 'old upload chunks', everyMs: HOUR_MS, run: () => sweepers.chunked.sweep() });
  scheduler.add({ name: 'expired export artifacts', everyMs: HOUR_MS, run: () => sweepers.exports.sweep() });
}
