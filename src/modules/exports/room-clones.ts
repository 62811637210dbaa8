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
import { jobActor, jobKind, type JobContext, type JobQueue, type JobWorker } from '../../infra/job-queue.js';
import { type Exchange, restoreOrder } from '../exchange/exchange.js';
import type { WritePath } from '../history/write-path.js';
import type { LayerIngest } from '../layers/layer-ingest.js';
import type { LayersRepository } from '../layers/layers.repository.js';
import type { RasterIngest } from '../rasters/raster-ingest.js';
import type { RoomsRepository } from '../rooms/rooms.repository.js';
import { GeoPackageFile } from '../../geo-engine/gpkg-reader.js';
import { EXPORT_LAYOUT, RestoredContent } from './restored-content.js';
import type { RoomExporter, RoomSources } from './room-export.js';
import { Manifest } from './exports.schemas.js';

/** How long a manifest's grant lets its holder copy the source room's data: the contract's 24 hours. */
export const GRANT_LIFETIME_SECONDS = 24 * 3600;
const Payload = Type.Object({ sourceRoomId: Type.String(), manifest: Manifest });
type Payload = Static<typeof Payload>;
/** Clones in the job queue. */
export const ROOM_CLONE_JOB = jobKind('room-clone', Payload);

export interface RoomClonesParts {
  sources: CloneSources;
  keys: SessionKeys;
  exporter: RoomExporter;
  layers: LayerIngest;
  rasters: RasterIngest;
  staged: StagedJobs;
  writePath: WritePath;
  tmpDir: string;
  jobs: JobQueue;
}

/** What a clone reads: the domains' exchanges, and the source room and its layers. */
export interface CloneSources extends RoomSources {
  exchanges: Exchange[];
  rooms: RoomsRepository;
  layers: LayersRepository;
}

/** One clone as it runs: from the source room to the target, by the actor, under its stage. */
interface CloneRun {
  sourceRoomId: string;
  target: string;
  actor: Actor;
  stageId: string;
  manifest: Manifest;
  content: RestoredContent;
  /** Reports a copied layer or raster by name. */
  step: (name: string) => Promise<void>;
}

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
  private readonly sources: CloneSources;
  private readonly keys: SessionKeys;
  private readonly exporter: RoomExporter;
  private readonly layers: LayerIngest;
  private readonly rasters: RasterIngest;
  private readonly staged: StagedJobs;
  private readonly writePath: WritePath;
  private readonly tmpDir: string;
  private readonly jobs: JobQueue;

  constructor(parts: RoomClonesParts) {
    ({
      sources: this.sources,
      keys: this.keys,
      exporter: this.exporter,
      layers: this.layers,
      rasters: this.rasters,
      staged: this.staged,
      writePath: this.writePath,
      tmpDir: this.tmpDir,
      jobs: this.jobs,
    } = parts);
  }

  /** How the job queue runs clones (src/jobs.ts). */
  readonly worker: JobWorker<Payload> = { run: (job) => this.run(job), undo: (job) => this.undo(job.id) };

  async manifest(room: RoomRow): Promise<Manifest> {
    const listed = this.sources.exchanges.filter((e) => e.clone);
    const lists = await Promise.all(listed.map(async (e) => e.clone!.manifest(await e.export.rows(room.id))));
    const { grant, expiresAt } = await this.keys.issueGrant(room, GRANT_LIFETIME_SECONDS);
    const manifest: Manifest = {
      sourceRoomId: room.id,
      grant,
      expiresAt,
      markers: [],
      icons: [],
      drawings: [],
      layers: [],
      rasterLayers: [],
    };
    return Object.assign(manifest, ...lists);
  }

  /**
   * Checks the grant (403 when missing, altered, expired, for another room, or for a room
   * since deleted) and queues the copy.
   */
  async start(room: RoomRow, caller: Caller, manifest: Manifest, requestId: string): Promise<{ jobId: string }> {
    const sourceRoomId = await this.grantedSource(manifest);
    const jobId = `job-${randomUUID()}`;
    await this.jobs.enqueue(ROOM_CLONE_JOB, {
      id: jobId,
      roomId: room.id,
      payload: { sourceRoomId, manifest },
      actor: actorOf(caller),
      requestId,
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
    const actor = jobActor(job);
    await this.undo(job.id);
    // Checked again: the room may have been deleted (its grant with it) while the job waited.
    const sourceRoomId = await this.grantedSource(manifest);
    await this.staged.begin(job.id, target);
    const content = new RestoredContent(target, actor, this.sources.files);
    try {
      await this.copyObjects(sourceRoomId, manifest, content);
      const total = manifest.layers.length + manifest.rasterLayers.length;
      let cloned = 0;
      const step = async (name: string) => {
        cloned += 1;
        await job.progress((90 * cloned) / Math.max(1, total), `Copied ${name}`, { layersCloned: cloned });
      };
      const run: CloneRun = { sourceRoomId, target, actor, stageId: job.id, manifest, content, step };
      await this.copyVectorLayers(run);
      await this.copyRasters(run);
      await this.sources.files.assertRoomFor(target, 0);
      const summary = { source: 'clone', sourceRoomId, imported: content.counts };
      await this.writePath.write(target, actor, async (trx) => {
        await content.insert(trx, restoreOrder(this.sources.exchanges));
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

  /**
   * The manifest's small objects (markers, icons, drawn shapes), restored by their exchanges as
   * an import would: first the stored files they use (photos), then each table after those it
   * refers to. Files are read from the source room only (files of other rooms are never read).
   */
  private async copyObjects(sourceRoomId: string, manifest: Manifest, content: RestoredContent) {
    const { exchanges, files } = this.sources;
    const listed = (e: Exchange) =>
      ((manifest as Record<string, unknown>)[e.clone!.restoredFrom!.field] ?? []) as unknown[];
    const cloned = restoreOrder(exchanges.filter((e) => e.clone?.restoredFrom));
    const storedFiles = exchanges.find((e) => e.source === 'stored_files');
    const keys = new Set(
      cloned
        .flatMap((e) => listed(e).flatMap((item) => e.clone!.restoredFrom!.files?.(item) ?? []))
        .filter((k): k is string => typeof k === 'string'),
    );
    for (const key of keys) {
      const stored = storedFiles && (await files.find(sourceRoomId, key));
      const data = stored && (await files.read(key));
      if (!stored || !data) continue;
      await content.add(storedFiles, { key, kind: stored.kind, meta: stored.meta }, { data, fromRoom: true });
    }
    for (const exchange of cloned) {
      const clone = exchange.clone!.restoredFrom!;
      const sourceRows = clone.sourceId
        ? new Map(((await exchange.export.rows(sourceRoomId)) as { id: string }[]).map((row) => [row.id, row]))
        : null;
      for (const item of listed(exchange)) {
        const source = sourceRows?.get(clone.sourceId!(item));
        if (sourceRows && !source) continue;
        const { fileKey } = exchange.export;
        const data = source && fileKey ? await files.read(fileKey(source)) : null;
        if (source && fileKey && !data) continue;
        const file = clone.fileRow(item, source);
        if (!file) continue;
        await content.add(exchange, file.row, {
          geometry: file.geometry ?? null,
          data,
          fromRoom: true,
        });
      }
    }
  }

  private async copyVectorLayers({ sourceRoomId, target, actor, stageId, manifest, content, step }: CloneRun) {
    if (manifest.layers.length === 0) return;
    const ids = manifest.layers.map((l) => l.id);
    const file = await this.exporter.write(sourceRoomId, { includeTiffs: false, includeTiles: false, onlyLayers: ids });
    const gpkg = await GeoPackageFile.open(file, EXPORT_LAYOUT);
    try {
      const tables = new Map(this.layerRows(gpkg).map((row) => [String(row.id), String(row.table_name)]));
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

  private async copyRasters({ sourceRoomId, target, actor, stageId, manifest, content, step }: CloneRun) {
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

  /** The layers table of an export (the exchange of `layers` names its columns). */
  private layerRows(gpkg: GeoPackageFile) {
    const layers = this.sources.exchanges.find((e) => e.source === 'layers');
    return layers ? gpkg.rows(layers.table, layers.columns) : [];
  }

  private async undo(jobId: string) {
    await this.layers.undo(jobId);
    await this.rasters.undo(jobId);
  }
}
