import type { Actor } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { StagedJobs } from '../../db/staged-jobs.js';
import type { Change, WritePath } from '../history/write-path.js';
import { refusalOf } from './geo-failures.js';
import type { UploadAs } from './uploads.schemas.js';

/** An uploaded file on local disk, and the name it was sent under (its extension tells formats apart). */
export interface SourceFile {
  path: string;
  fileName: string;
}

/** What the person named the layer, and how it should look (`style` for vector layers, `display` for rasters). */
export interface IngestMeta {
  layerName: string;
  description?: string | null;
  style?: Record<string, unknown>;
  display?: unknown;
  /** `EPSG:nnnn` the sender says a vector file's coordinates are in (an upload's `sourceCrs`), or null. */
  sourceCrs?: string | null;
  /**
   * What a vector file becomes (an upload's `as`): `auto` (or none) markers when every feature
   * is a point, else layers; `layer` always layers; `markers` markers, refusing any other feature.
   */
  as?: UploadAs;
}

export interface IngestProgress {
  signal?: AbortSignal;
  onProgress?: (percent: number, message: string) => void;
}

/** What a step staged, as the final publish and the upload's answers need it. */
export interface StagedIngest {
  /** The changes that announce it: history entries and live events. */
  changes: Change[];
  /** Work of the publishing transaction besides making the staged rows visible. */
  publish?: (trx: Db) => Promise<void>;
  /** The answer of an upload processed while the client waits (read once published). */
  answer: () => Promise<unknown>;
  /** What the upload's job reports when it is done. */
  done: { message: string; result: Record<string, unknown> };
}

/**
 * One kind of file the ingest takes (vector files: layers/layer-ingest.ts; GeoTIFFs:
 * rasters/raster-ingest.ts). `check` refuses a file before anything is kept and gives what
 * `stageFile` needs; `stageFile` writes everything staged under `stageId`, invisible until the
 * ingest publishes it; `undo` removes what a run under `stageId` wrote. `needsJob`, when the
 * step has it, says from what `check` found that the file is too much work to stage while the
 * client waits, whatever its bytes (a GeoTIFF declaring many pixels).
 */
export interface IngestStep<Checked, Meta extends IngestMeta, Staged extends StagedIngest> {
  check(source: SourceFile, meta: Meta): Promise<Checked>;
  needsJob?(checked: Checked): boolean;
  stageFile(
    roomId: string,
    actor: Actor,
    checked: Checked,
    meta: Meta,
    stageId: string,
    progress: IngestProgress,
  ): Promise<Staged>;
  undo(stageId: string): Promise<void>;
}

/**
 * The ingest of a file, whatever its kind: the step checks it, stages it under `stageId` (a
 * job's id, or a fresh one), and the ingest publishes it in one write-path step (the staged
 * rows become visible with their history entries and live events). A failure removes what was
 * staged, unless the run was stopped (its job resumes it), and is answered as the contract's
 * error (geo-failures.ts).
 */
export class Ingest {
  constructor(
    private readonly staged: StagedJobs,
    private readonly writePath: WritePath,
  ) {}

  /** The step's check, its refusals as the contract's errors. */
  async check<C, M extends IngestMeta, S extends StagedIngest>(
    step: IngestStep<C, M, S>,
    source: SourceFile,
    meta: M,
  ): Promise<C> {
    try {
      return await step.check(source, meta);
    } catch (error) {
      throw refusalOf(error);
    }
  }

  async run<C, M extends IngestMeta, S extends StagedIngest>(
    step: IngestStep<C, M, S>,
    target: { roomId: string; actor: Actor; stageId: string },
    checked: C,
    meta: M,
    progress: IngestProgress = {},
  ): Promise<S> {
    const { roomId, actor, stageId } = target;
    await step.undo(stageId);
    await this.staged.begin(stageId, roomId);
    try {
      const staged = await step.stageFile(roomId, actor, checked, meta, stageId, progress);
      await this.writePath.write(roomId, actor, async (trx) => {
        await this.staged.publish(trx, stageId);
        await staged.publish?.(trx);
        return { result: null, changes: staged.changes };
      });
      return staged;
    } catch (error) {
      if (!progress.signal?.aborted) await step.undo(stageId);
      throw refusalOf(error);
    }
  }
}
