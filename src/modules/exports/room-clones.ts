import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { actorOf, type Actor, type Caller } from '../../auth/access.js';
import type { SessionKeys } from '../../auth/sessions.js';
import type { StagedJobs } from '../../db/staged-jobs.js';
import type { RoomRow } from '../../db/tables.js';
import { invalidGrant } from '../../errors.js';
import { newId } from '../../ids.js';
import type { JobContext, JobQueue, JobType } from '../../infra/job-queue.js';
import type { WritePath } from '../history/write-path.js';
import { presentIcon } from '../icons/icons.presenter.js';
import type { LayerIngest } from '../layers/layer-ingest.js';
import { presentVectorLayer } from '../layers/layers.presenter.js';
import { presentDrawing } from '../drawings/drawings.presenter.js';
import { presentMarker } from '../markers/markers.presenter.js';
import type { RasterIngest } from '../rasters/raster-ingest.js';
import { presentRasterLayer } from '../rasters/rasters.presenter.js';
import * as T from './export-tables.js';
import { GeoPackageFile } from '../../geo-engine/gpkg-reader.js';
import { EXPORT_LAYOUT, RestoredContent } from './restored-content.js';
import type { RoomExporter, RoomSources } from './room-export.js';
import { Manifest } from './exports.schemas.js';

/** How long a manifest's grant lets its holder copy the source room's data. */
const GRANT_LIFETIME_SECONDS = 24 * 3600;
const Payload = Type.Object({ sourceRoomId: Type.String(), manifest: Manifest });
type Payload = Static<typeof Payload>;

/**
 * Clones: `export-manifest` describes a room in small JSON (markers, icons, drawn shapes,
 * layer and raster settings) with a signed 24-hour grant; `clone-jobs` on another room takes
 * that manifest and, in a job, copies what it names from the source room: icons and photos,
 * each vector layer's features (through an export of just those layers) and each raster's
 * GeoTIFF. The manifest's small objects are taken as sent (the caller may write the target);
 * bulky data is only ever read from the source room the grant names, by ids of that room.
 * The copy is staged and appears in one step (`room.imported`); copied bytes count against
 * the target owner's quota.
 */
export class RoomClones {
  private readonly jobType: JobType<Payload>;

  constructor(
    private readonly sources: RoomSources,
    private readonly keys: SessionKeys,
    private readonly exporter: RoomExporter,
    private readonly layers: LayerIngest,
    private readonly rasters: RasterIngest,
    private readonly staged: StagedJobs,
    private readonly writePath: WritePath,
    private readonly tmpDir: string,
    queue: JobQueue,
  ) {
    this.jobType = queue.register(
      'room-clone',
      Payload,
      (job) => this.run(job),
      (job) => this.undo(job.id),
    );
  }

  async manifest(room: RoomRow): Promise<Manifest> {
    const s = this.sources;
    const [markers, icons, drawings, layers] = await Promise.all([
      s.markers.list(room.id),
      s.icons.listForRoom(room.id),
      s.drawings.list(room.id),
      s.layers.list(room.id),
    ]);
    const { grant, expiresAt } = await this.keys.issueGrant(room, GRANT_LIFETIME_SECONDS);
    return {
      sourceRoomId: room.id,
      grant,
      expiresAt,
      markers: markers.map(presentMarker),
      icons: icons.map(presentIcon),
      drawings: drawings.map(presentDrawing),
      layers: layers
        .filter((l) => l.kind === 'vector')
        .map((l) => ({ id: l.id, name: l.name, description: l.description, style: presentVectorLayer(l).style })),
      rasterLayers: layers
        .filter((l) => l.kind === 'raster')
        .map((l) => ({ id: l.id, name: l.name, description: l.description, display: presentRasterLayer(l).display })),
    };
  }

  /**
   * Checks the grant (403 when missing, altered, expired, for another room, or for a room
   * since deleted) and queues the copy.
   */
  async start(room: RoomRow, caller: Caller, manifest: Manifest): Promise<{ jobId: string }> {
    const sourceRoomId = await this.grantedSource(manifest);
    const jobId = `job-${randomUUID()}`;
    await this.jobType.enqueue({
      id: jobId,
      roomId: room.id,
      payload: { sourceRoomId, manifest },
      actor: actorOf(caller),
    });
    return { jobId };
  }

  /** The source room's id, when the manifest's grant covers it and it still exists. */
  private async grantedSource(manifest: Manifest): Promise<string> {
    if (!manifest.grant) throw invalidGrant('is missing');
    const granted = await this.keys.grantedRoom(manifest.grant);
    if (granted === null) throw invalidGrant('is not valid (altered or expired)');
    if (granted.id !== manifest.sourceRoomId) throw invalidGrant(`covers another room than ${manifest.sourceRoomId}`);
    const source = await this.sources.rooms.find(granted.id);
    if (!source || source.created_at !== granted.createdAt)
      throw invalidGrant('covers a room that has since been deleted');
    return granted.id;
  }

  private async run(job: JobContext<Payload>) {
    const { manifest } = job.payload;
    const target = job.roomId;
    await this.undo(job.id);
    // Checked again: the room may have been deleted (its grant with it) while the job waited.
    const sourceRoomId = await this.grantedSource(manifest);
    await this.staged.begin(job.id, target);
    const content = new RestoredContent(target, job.actor, this.sources.files);
    try {
      await this.copyFiles(sourceRoomId, manifest, content);
      const total = manifest.layers.length + manifest.rasterLayers.length;
      let cloned = 0;
      const step = async (name: string) => {
        cloned += 1;
        await job.progress((90 * cloned) / Math.max(1, total), `Copied ${name}`, { layersCloned: cloned });
      };
      await this.copyVectorLayers(sourceRoomId, target, job.actor, job.id, manifest, content, step);
      await this.copyRasters(sourceRoomId, target, job.actor, job.id, manifest, content, step);
      for (const marker of manifest.markers)
        if (typeof marker.latitude === 'number' && typeof marker.longitude === 'number')
          content.addMarker(markerFeature(marker));
      for (const drawing of manifest.drawings)
        content.addDrawing({
          geometry: drawing.geometry as never,
          properties: {
            id: drawing.id,
            label: drawing.label ?? null,
            style: drawing.style ? JSON.stringify(drawing.style) : null,
          },
        });
      await this.sources.files.assertRoomFor(target, 0);
      const summary = { source: 'clone', sourceRoomId, imported: content.counts };
      await this.writePath.write(target, job.actor, async (trx) => {
        await content.insert(trx);
        await this.staged.publish(trx, job.id);
        return {
          result: null,
          changes: [{ type: 'room.imported', objectType: 'room', objectId: target, changes: summary, data: summary }],
        };
      });
      return {
        message: `Cloned ${cloned} layer${cloned === 1 ? '' : 's'}`,
        result: { layersCloned: cloned, imported: content.counts },
      };
    } catch (error) {
      if (!job.signal.aborted) {
        await content.discardFiles();
        await this.undo(job.id);
      }
      throw error;
    }
  }

  /** Icons and photos the manifest's markers use, copied from the source room (files of other rooms are never read). */
  private async copyFiles(sourceRoomId: string, manifest: Manifest, content: RestoredContent) {
    const files = this.sources.files;
    for (const icon of manifest.icons) {
      const row = await this.sources.icons.find(sourceRoomId, icon.iconId);
      const data = row && (await files.read(row.file_key));
      if (!row || !data) continue;
      await content.addIcon(
        { ...row, name: icon.name ?? row.name, size: icon.size ?? row.size },
        { data, contentType: row.content_type, ext: row.content_type === 'image/png' ? 'png' : 'svg' },
      );
    }
    const keys = new Set(
      manifest.markers.flatMap((m) => [m.imageKey, m.thumbnailKey]).filter((k): k is string => typeof k === 'string'),
    );
    for (const key of keys) {
      const stored = await files.find(sourceRoomId, key);
      const data = stored && (await files.read(key));
      if (!stored || !data) continue;
      await content.addImage({ key, kind: stored.kind, meta: stored.meta }, data);
    }
  }

  private async copyVectorLayers(
    sourceRoomId: string,
    target: string,
    actor: Actor,
    stageId: string,
    manifest: Manifest,
    content: RestoredContent,
    step: (name: string) => Promise<void>,
  ) {
    if (manifest.layers.length === 0) return;
    const ids = manifest.layers.map((l) => l.id);
    const file = await this.exporter.write(sourceRoomId, { includeTiffs: false, includeTiles: false, onlyLayers: ids });
    const gpkg = await GeoPackageFile.open(file, EXPORT_LAYOUT);
    try {
      const tables = new Map(
        gpkg.rows(T.LAYERS.table, T.LAYERS.columns).map((row) => [String(row.id), String(row.table_name)]),
      );
      const opened = tables.size > 0 ? await this.layers.open({ path: file, fileName: 'clone.gpkg' }) : { tables: [] };
      for (const wanted of manifest.layers) {
        const table = opened.tables.find((t) => t.name === tables.get(wanted.id));
        if (!table) continue;
        const meta = {
          layerName: wanted.name,
          description: wanted.description ?? null,
          ...(wanted.style && { style: wanted.style }),
        };
        const [row] = await this.layers.stage(target, actor, [{ table, meta }], stageId, 'geopackage');
        content.mapLayer(wanted.id, row!.id);
        await step(wanted.name);
      }
    } finally {
      gpkg.close();
      await rm(file, { force: true });
    }
  }

  private async copyRasters(
    sourceRoomId: string,
    target: string,
    actor: Actor,
    stageId: string,
    manifest: Manifest,
    content: RestoredContent,
    step: (name: string) => Promise<void>,
  ) {
    const folder = path.join(this.tmpDir, 'clones');
    await mkdir(folder, { recursive: true });
    for (const wanted of manifest.rasterLayers) {
      const row = await this.sources.layers.find(sourceRoomId, wanted.id);
      const sourceKey =
        row?.kind === 'raster' ? (JSON.parse(row.raster ?? '{}') as { sourceKey?: string }).sourceKey : undefined;
      if (!row || !sourceKey) continue;
      const local = await this.sources.files.localFile(sourceKey);
      const copy = path.join(folder, `${newId('raster')}.tif`);
      try {
        await copyFile(local.path, copy);
        const meta = {
          layerName: wanted.name,
          description: wanted.description ?? null,
          display: wanted.display ?? JSON.parse(row.display ?? 'null'),
        };
        const raster = await this.rasters.stage(target, actor, { path: copy, fileName: 'raster.tif' }, meta, stageId);
        content.mapRaster(wanted.id, raster.id);
        await step(wanted.name);
      } finally {
        await local.release();
        await rm(copy, { force: true });
      }
    }
  }

  private async undo(jobId: string) {
    await this.layers.undo(jobId);
    await this.rasters.undo(jobId);
  }
}

function markerFeature(marker: Manifest['markers'][number]) {
  return {
    geometry: { type: 'Point' as const, coordinates: [marker.longitude!, marker.latitude!] },
    properties: {
      id: marker.id,
      title: marker.title ?? null,
      description: marker.description ?? null,
      color: marker.color ?? null,
      tags: marker.tags ? JSON.stringify(marker.tags) : null,
      event_date: marker.eventDate ?? null,
      marker_icon_id: marker.markerIconId ?? null,
      marker_icon_size: marker.markerIconSize ?? null,
      image_key: marker.imageKey ?? null,
      thumbnail_key: marker.thumbnailKey ?? null,
      image_meta: marker.imageMeta ? JSON.stringify(marker.imageMeta) : null,
      embedded_media_url: marker.embeddedMediaUrl ?? null,
      media_size: marker.mediaSize ?? null,
      created_by: marker.createdBy ?? null,
      created_at: marker.createdAt ?? null,
      updated_at: marker.updatedAt ?? null,
    },
  };
}
