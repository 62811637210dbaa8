import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { type Static, Type } from 'typebox';
import { type Actor, actorOf, type Caller } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { StagedJobs } from '../../db/staged-jobs.js';
import type { RoomRow } from '../../db/tables.js';
import { invalidField, notFound, notRemoteLayer } from '../../errors.js';
import type { LayerField } from '../../geo/feature-fields.js';
import { newId } from '../../ids.js';
import {
  JobFailure,
  jobActor,
  jobKind,
  type JobContext,
  type JobQueue,
  type JobWorker,
} from '../../infra/job-queue.js';
import { OutboundRefused, OutboundTooLarge, refusalOf } from '../../infra/outbound.js';
import { MembersAfterFeatures } from '../../geo/vector/errors.js';
import type { Sweep } from '../../infra/scheduler.js';
import type { Ingest } from '../ingest/ingest.js';
import { refusalOf as fileRefusalOf } from '../ingest/geo-failures.js';
import { jobProgress } from '../ingest/job-progress.js';
import type { WritePath } from '../history/write-path.js';
import type { FeatureEditsRepository } from './feature-edits.repository.js';
import type { FeatureTablesRepository } from './feature-tables.js';
import type { LayerIngest, LayerMeta } from './layer-ingest.js';
import type { LayerRow, LayersRepository } from './layers.repository.js';
import { fieldsOf, presentVectorLayer } from './layers.presenter.js';
import { compareContent, type ContentList, FeatureContent } from '../../geo/feature-content.js';
import type { RemoteLayerInput } from './layers.schemas.js';
import { type FetchedSource, fetchSource, type SourceFetch } from './remote-source.js';

/** A remote layer's job: its first read (`url`, `name`) or a refresh (`layerId`). */
export const RemoteLayerJobPayload = Type.Object({
  url: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  refreshMinutes: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  layerId: Type.Optional(Type.String()),
});
export type RemoteLayerJobPayload = Static<typeof RemoteLayerJobPayload>;
export const REMOTE_LAYER_JOB = jobKind('remote-layer', RemoteLayerJobPayload);

/** Rows of a layer read at once when a refresh compares it with its source (few: their text is soon garbage). */
const COMPARE_ROWS = 1000;

export interface RemoteLayersOptions {
  db: Db;
  layers: LayersRepository;
  featureTables: FeatureTablesRepository;
  edits: FeatureEditsRepository;
  vectorIngest: LayerIngest;
  ingest: Ingest;
  staged: StagedJobs;
  writePath: WritePath;
  jobs: JobQueue;
  tmpDir: string;
  /** How sources are fetched (OUTBOUND_ALLOW_PRIVATE, sizes and time limits). */
  fetch: Omit<SourceFetch, 'dir' | 'signal'>;
}

/**
 * Layers read from an address and kept in step with it. A job reads the source (remote-source.ts)
 * and ingests it as an upload is ingested. A refresh ingests the source again beside the layer,
 * compares the two feature by feature, and when something changed puts the new tables in the
 * layer's place in one write: one `layer.updated` history entry with the counts. A failing read
 * keeps the layer's data and records why (`source.lastError`). A sweep queues the refreshes
 * that are due.
 */
export class RemoteLayers {
  constructor(private readonly options: RemoteLayersOptions) {}

  readonly worker: JobWorker<RemoteLayerJobPayload> = {
    run: (job) => (job.payload.layerId ? this.refreshJob(job, job.payload.layerId) : this.createJob(job)),
    undo: async (job) => this.options.vectorIngest.undo(job.id),
  };

  /** Queues the first read of a remote layer: 202 `{jobId}`. */
  async create(room: RoomRow, caller: Caller, input: RemoteLayerInput, requestId: string) {
    const refusal = refusalOf(new URL(input.url), this.options.fetch.allowPrivate);
    if (refusal) throw invalidField('body.url', refusal);
    const jobId = newId('job');
    const payload = { url: input.url, name: input.name, refreshMinutes: input.refreshMinutes ?? null };
    await this.options.jobs.enqueue(REMOTE_LAYER_JOB, {
      id: jobId,
      roomId: room.id,
      payload,
      actor: actorOf(caller),
      requestId,
    });
    return { jobId };
  }

  /** Queues a refresh of a remote layer of the room: 202 `{jobId}`, the one waiting or running already if there is one. */
  async refresh(room: RoomRow, caller: Caller, layerId: string, requestId: string) {
    const layer = await this.options.layers.findVector(room.id, layerId);
    if (!layer) throw notFound('Layer');
    if (!layer.source_url) throw notRemoteLayer();
    return { jobId: await this.queueRefresh(layer, actorOf(caller), newId('job'), requestId) };
  }

  /** Queues a refresh as `jobId` unless one is waiting or running (its id is answered then). */
  private async queueRefresh(layer: LayerRow, actor: Actor, jobId: string, requestId?: string): Promise<string> {
    const { jobs, layers, db } = this.options;
    const pending = layer.refresh_job_id ? await jobs.find(layer.refresh_job_id) : undefined;
    if (pending && (pending.stage === 'queued' || pending.stage === 'processing')) return pending.id;
    await layers.update(db, layer.id, { refresh_job_id: jobId });
    const payload = { layerId: layer.id };
    await jobs.enqueue(REMOTE_LAYER_JOB, { id: jobId, roomId: layer.room_id, payload, actor, requestId });
    return jobId;
  }

  /** Queues the refreshes that are due, each once (its job's id names the layer and the time it was due). */
  readonly sweep: Sweep = {
    name: 'remote-layer-refreshes',
    everyMs: 60_000,
    run: async () => {
      const now = Date.now();
      for (const layer of await this.options.layers.dueRefreshes(now)) {
        const due = Number(layer.last_attempt_at ?? 0) + Number(layer.refresh_minutes) * 60_000;
        await this.options.layers.update(this.options.db, layer.id, { last_attempt_at: now });
        // Queued already by another instance's sweep: its id is taken.
        await this.queueRefresh(layer, creatorOf(layer), `job-refresh-${layer.id}-${due}`).catch(() => undefined);
      }
    },
  };

  /** Drops the tables refreshes replaced, once the reads that began before have ended. */
  readonly retiredTables: Sweep = {
    name: 'retired-feature-tables',
    everyMs: 60_000,
    run: () => this.options.featureTables.dropRetired(Date.now() - 60_000),
  };

  private async createJob(job: JobContext<RemoteLayerJobPayload>) {
    const { url = '', name = 'Layer', refreshMinutes = null } = job.payload;
    return this.withSource(job, url, async (source) => {
      const { ingest, vectorIngest } = this.options;
      const remote = { source_url: url, refresh_minutes: refreshMinutes, refresh_job_id: null, ...this.succeeded() };
      const meta: LayerMeta = { ...readMeta(source), layerName: name, remote };
      const opened = await ingest.check(vectorIngest, source, meta);
      // A source is one layer: the first table of a file that holds several.
      const one = { ...opened, tables: opened.tables.slice(0, 1) };
      const target = { roomId: job.roomId, actor: jobActor(job), stageId: job.id };
      const staged = await ingest.run(vectorIngest, target, one, meta, jobProgress(job));
      return staged.done;
    });
  }

  private async refreshJob(job: JobContext<RemoteLayerJobPayload>, layerId: string) {
    const { layers, db } = this.options;
    const layer = await layers.findVector(job.roomId, layerId);
    if (!layer?.source_url) throw new JobFailure('The layer was deleted, or is not read from an address');
    try {
      return await this.withSource(job, layer.source_url, (source) => this.replaceData(job, layer, source));
    } catch (error) {
      if (job.signal.aborted) throw error;
      // Words for the room's readers: the service's own failures say no more than that.
      const reason = error instanceof JobFailure ? error.message : 'The source could not be read (the service failed)';
      await layers.update(db, layer.id, { last_error: reason.slice(0, 1000), last_attempt_at: Date.now() });
      throw error;
    }
  }

  /** Ingests the source beside the layer and, when they differ, puts it in the layer's place. */
  private async replaceData(
    job: JobContext<RemoteLayerJobPayload>,
    layer: LayerRow & { storage_key: number },
    source: FetchedSource,
  ) {
    const { ingest, vectorIngest, staged, writePath, layers, featureTables } = this.options;
    const meta: LayerMeta = { ...readMeta(source), layerName: layer.name, withContent: true };
    // The layer's features are read while the source is checked and the ingest worker reads it.
    const before = this.contentOf(layer.storage_key, Number(layer.last_row));
    before.catch(() => undefined);
    const opened = await ingest.check(vectorIngest, source, meta);
    await vectorIngest.undo(job.id);
    await staged.begin(job.id, job.roomId);
    try {
      const [fresh] = await vectorIngest.stage(
        job.roomId,
        jobActor(job),
        [{ table: opened.tables[0]!, meta }],
        job.id,
        opened.format,
        jobProgress(job),
      );
      const counts = compareContent(await before, fresh!.content!);
      if (counts.added + counts.changed + counts.removed === 0) {
        await vectorIngest.undo(job.id);
        await layers.update(this.options.db, layer.id, this.succeeded());
        return { message: 'The source has not changed', result: { layerId: layer.id, ...counts } };
      }
      await writePath.write(job.roomId, jobActor(job), async (trx) => {
        const current = await layers.touchVector(trx, job.roomId, layer.id);
        if (!current) throw new JobFailure('The layer was deleted while its source was read');
        await layers.moveChunks(trx, fresh!.id, current.id);
        await this.bumpVersions(trx, current, counts.touched);
        await layers.deleteRow(trx, fresh!.id);
        // Dropped a minute later: a read that took the layer's key before this write may still use them.
        await featureTables.retire(trx, current.storage_key);
        await staged.publish(trx, job.id);
        await layers.update(trx, current.id, {
          storage_key: fresh!.storage_key,
          feature_count: fresh!.feature_count,
          last_row: fresh!.last_row,
          geometry_type: fresh!.geometry_type,
          bbox: fresh!.bbox,
          size_bytes: fresh!.size_bytes,
          fields: JSON.stringify(keptFields(fieldsOf(current) ?? [], fieldsOf(fresh!) ?? [])),
          ...this.succeeded(),
        });
        const row = (await layers.findOfKind(job.roomId, current.id, trx))!;
        const { added, changed, removed } = counts;
        const data = presentVectorLayer(row);
        const refreshed = { added, changed, removed };
        return {
          result: null,
          changes: [{ type: 'layer.updated', objectType: 'layer', objectId: layer.id, changes: { refreshed }, data }],
        };
      });
      const { added, changed, removed } = counts;
      return {
        message: `Refreshed: ${added} added, ${changed} changed, ${removed} removed`,
        result: { layerId: layer.id, added, changed, removed },
      };
    } catch (error) {
      if (!job.signal.aborted) await vectorIngest.undo(job.id);
      // A source its reader refuses (a position that is not longitude/latitude) is the contract's 400.
      throw fileRefusalOf(error);
    }
  }

  /**
   * Each stored feature's id and content. Between pages it lets the event loop run: SQLite's
   * reads are synchronous, and without a turn the source's check (file reads) waited for all
   * of them before the ingest worker could start.
   */
  private async contentOf(key: number, lastRow: number): Promise<ContentList> {
    const content = new FeatureContent();
    for (let first = 1; first <= lastRow; first += COMPARE_ROWS) {
      for (const feature of await this.options.featureTables.featuresBetween(key, first, first + COMPARE_ROWS - 1)) {
        content.add(feature.id, feature.geometry, feature.properties);
      }
      await setImmediate();
    }
    return content.result();
  }

  /** A change based on a feature as it was before the refresh is refused (409) after it. */
  private async bumpVersions(trx: Db, layer: LayerRow, ids: number[]): Promise<void> {
    await this.options.edits.advanceVersions(trx, layer.id, ids);
  }

  /** Reads the source into a folder of the job's own, removed afterwards; a failure the caller can act on is the job's message. */
  private async withSource<T>(
    job: JobContext<RemoteLayerJobPayload>,
    url: string,
    use: (source: FetchedSource) => Promise<T>,
  ): Promise<T> {
    const dir = path.join(this.options.tmpDir, 'remote', job.id);
    await mkdir(dir, { recursive: true });
    try {
      await job.progress(0, 'Reading the source');
      const unread = (error: unknown): never => {
        throw new JobFailure(`The source could not be read: ${sourceProblem(error)}`);
      };
      const source = await fetchSource(url, { ...this.options.fetch, dir, signal: job.signal }).catch(unread);
      // Read on the strength of its members before its features, it had others after them: decided again on all of it.
      return await use(source).catch(async (error: unknown) => {
        if (!(error instanceof MembersAfterFeatures) || !source.whole) throw error;
        return use(await source.whole().catch(unread));
      });
    } catch (error) {
      const known = error as { statusCode?: number; message?: string };
      if (!job.signal.aborted && known.statusCode && known.statusCode < 500)
        throw new JobFailure(known.message ?? 'The source was refused');
      throw error;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The source columns of a read that succeeded now. */
  private succeeded() {
    const now = Date.now();
    return { last_attempt_at: now, last_refresh_at: now, last_error: null };
  }
}

/** Why a source could not be read, in words for the layer's owner (no address the name resolved to). */
function sourceProblem(error: unknown): string {
  if (error instanceof OutboundRefused || error instanceof OutboundTooLarge) return error.message;
  const code = (error as { code?: string }).code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ECONNRESET') return 'the connection was reset';
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'the host cannot be reached';
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return 'its TLS certificate was not accepted';
  // Its own words (an HTTP status, a page too large) when it is one of the download's; else none that could name an address.
  return error instanceof Error && !code && !(error instanceof AggregateError)
    ? error.message
    : 'the connection failed';
}

/** The source's fields, each kept as the layer declared it when its name and type are unchanged. */
function keptFields(before: LayerField[], fresh: LayerField[]): LayerField[] {
  return fresh.map((field) => before.find((old) => old.name === field.name && old.type === field.type) ?? field);
}

/** How a source is read: a layer even of points, its positions checked as its features are read. */
function readMeta(source: FetchedSource): Omit<LayerMeta, 'layerName'> {
  const { collectionMembers } = source;
  const membersBeforeFeatures = !!source.whole;
  return {
    as: 'layer',
    positionsCheckedOnRead: true,
    ...(collectionMembers && { collectionMembers, membersBeforeFeatures }),
  };
}

/** Who a scheduled refresh is made by in history: whoever added the layer. */
function creatorOf(layer: LayerRow): Actor {
  return { kind: layer.created_by.startsWith('token-') ? 'token' : 'user', id: layer.created_by };
}
