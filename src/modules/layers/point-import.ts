import type { Actor } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { AnyGeometry } from '../../geo/feature-summary.js';
import type { GeoLimits } from '../../config.js';
import { readFeatures, newStats } from '../../geo-engine/vector-stream.js';
import type { VectorTable } from '../../geo-engine/vector-open.js';
import type { IngestProgress, StagedIngest } from '../ingest/ingest.js';
import { markerOfUploadedPoint } from '../markers/imported-markers.js';
import { newMarkerRow, presentMarker, type MarkerRow } from '../markers/markers.presenter.js';
import type { MarkersRepository } from '../markers/markers.repository.js';

/** Markers inserted per statement: fixed, the engines cap bound values. */
const BATCH = 1000;

/** The positions of a Point or MultiPoint geometry. */
function positionsOf(geometry: AnyGeometry): number[][] {
  if (geometry.type === 'Point') return [geometry.coordinates as number[]];
  if (geometry.type === 'MultiPoint') return geometry.coordinates as number[][];
  return [];
}

/**
 * An uploaded file whose every feature is a point becomes markers: one per point, titled from
 * its properties (markerOfUploadedPoint). They are written staged and appear at once when the
 * ingest publishes them, with one `room.imported` history entry and live event, as a bulk
 * import does.
 */
export class PointImport {
  constructor(
    private readonly db: Db,
    private readonly markers: MarkersRepository,
    private readonly geo: GeoLimits,
  ) {}

  async stageFile(
    roomId: string,
    actor: Actor,
    tables: VectorTable[],
    stageId: string,
    progress: IngestProgress,
  ): Promise<StagedIngest> {
    const total = tables.reduce((n, t) => n + (t.featureCount ?? 0), 0);
    const stats = newStats();
    const markerIds: string[] = [];
    const now = Date.now();
    let batch: MarkerRow[] = [];
    const flush = async () => {
      const rows = batch;
      batch = [];
      await this.db.transaction().execute((trx) => this.markers.insert(trx, rows));
    };
    for (const table of tables) {
      for await (const features of readFeatures(table, this.geo, { signal: progress.signal }, stats)) {
        for (const feature of features) {
          for (const [longitude, latitude] of positionsOf(feature.geometry)) {
            const marker = markerOfUploadedPoint(longitude!, latitude!, feature.properties);
            const row = newMarkerRow(roomId, marker, {
              createdBy: actor.id,
              createdAt: now + markerIds.length,
              imageMeta: null,
              importJobId: stageId,
            });
            markerIds.push(row.id);
            batch.push(row);
            if (batch.length === BATCH) await flush();
          }
        }
        progress.onProgress?.((100 * stats.features) / Math.max(1, total), `Read ${stats.features} of ${total} points`);
      }
    }
    if (batch.length) await flush();
    const summary = { source: 'layer-upload', markers: markerIds.length };
    const markersCreated = markerIds.length;
    return {
      changes: [{ type: 'room.imported', objectType: 'room', objectId: roomId, changes: summary, data: summary }],
      answer: async () => {
        const markers = await this.markers.findMany(roomId, markerIds);
        return { markersCreated, markers: markers.map(presentMarker), layer: null };
      },
      done: { message: `Created ${markersCreated} markers`, result: { markersCreated } },
    };
  }

  async undo(stageId: string): Promise<void> {
    await this.markers.deleteImported(this.db, stageId);
  }
}
