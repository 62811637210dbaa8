import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { type Api, ApiError } from './client.js';
import { configDir, writePrivate } from './credentials.js';
import { followJob } from './jobs.js';
import type { Output } from './output.js';

/** The service takes at most 50 MB in one request; larger files go in chunks. */
export const CHUNKED_ABOVE = 50 * 1024 * 1024;
/** The size of a chunk: 16 MiB, or `MAPROOM_CHUNK_BYTES` (at most 50 MB). */
const chunkBytes = () => Math.min(Number(process.env.MAPROOM_CHUNK_BYTES) || 16 * 1024 * 1024, CHUNKED_ABOVE);

/** The upload ids `ChunkedUpload.fresh` makes: a UUID's 32 hex digits. */
const UPLOAD_ID = /^[0-9a-f]{32}$/;

/** The form's optional fields; `style` and `display` are JSON texts. */
export interface LayerFields {
  layerName?: string;
  description?: string;
  style?: string;
  display?: string;
  /** What a vector file becomes: auto, layer or markers. */
  as?: 'auto' | 'layer' | 'markers';
}

/** What an upload made: layers (vector or raster, by id) or markers. */
export interface Uploaded {
  file: string;
  layerIds: string[];
  markersCreated?: number;
}

/** The answers of `POST /api/layers/upload` (200; the document leaves it open). */
interface UploadAnswer {
  jobId?: string;
  layers?: { id: string }[];
  rasterLayer?: { id: string };
  markersCreated?: number;
}

/** What a chunked upload has sent so far, kept in the config directory until the service has the whole file. */
interface ChunkedState {
  uploadId: string;
  totalChunks: number;
  chunkBytes: number;
  sent: number[];
}

/**
 * Uploads one layer file: in one request up to 50 MB, else in chunks that resume after an
 * interruption; then follows the processing job, if any, until the layers exist.
 */
export async function uploadLayerFile(
  api: Api,
  out: Output,
  roomId: string,
  file: string,
  fields: LayerFields,
): Promise<Uploaded> {
  const size = statSync(file).size;
  const fileName = path.basename(file);
  const progress = out.progress(`Uploading ${fileName}`);
  let answer: UploadAnswer;
  try {
    if (size <= CHUNKED_ABOVE) {
      const form = { roomName: roomId, ...fields };
      const onBytes = (sent: number) => progress.update(Math.min(sent, size), size, '', true);
      answer = (
        await api.postForm<UploadAnswer>(
          '/api/layers/upload',
          form,
          { field: 'file', path: file, name: fileName },
          onBytes,
        )
      ).body;
    } else {
      answer = await new ChunkedUpload(api, out, roomId, file, fields).run((sent, detail) =>
        progress.update(sent, size, detail, true),
      );
    }
  } finally {
    progress.stop();
  }
  if (answer.jobId) {
    const job = await followJob(api, out, answer.jobId, 'layers');
    const ids = (job.layerIds as string[] | undefined) ?? [];
    return {
      file,
      layerIds: ids,
      ...(typeof job.markersCreated === 'number' && { markersCreated: job.markersCreated }),
    };
  }
  const layerIds = [...(answer.layers ?? []).map((l) => l.id), ...(answer.rasterLayer ? [answer.rasterLayer.id] : [])];
  return { file, layerIds, ...(answer.markersCreated !== undefined && { markersCreated: answer.markersCreated }) };
}

/** The missing chunks a `process-chunked` refusal names (`details: [{field: 'chunkIndex', message: 'missing: 3, 4'}]`). */
function missingChunks(error: ApiError): number[] | undefined {
  const details = Array.isArray(error.details) ? (error.details as { field?: string; message?: string }[]) : [];
  const named = details.find((d) => d.field === 'chunkIndex')?.message?.match(/missing: ([\d, ]+)/);
  return named ? named[1]!.split(',').map(Number) : undefined;
}

/**
 * A chunked upload of one file. Each chunk the service acknowledges is written to a state
 * file keyed by the service, room, file path, size and modification time; run again after an
 * interruption, it sends only the chunks not acknowledged. When the service no longer holds
 * chunks (swept after 24 hours), it sends them again.
 */
class ChunkedUpload {
  private readonly stateFile: string;
  private readonly size: number;
  private readonly fileName: string;

  constructor(
    private readonly api: Api,
    private readonly out: Output,
    private readonly roomId: string,
    private readonly file: string,
    private readonly fields: LayerFields,
  ) {
    const info = statSync(file);
    this.size = info.size;
    this.fileName = path.basename(file);
    const key = [api.credentials.url, roomId, path.resolve(file), info.size, info.mtimeMs].join('\n');
    this.stateFile = path.join(configDir(), 'uploads', `${createHash('sha256').update(key).digest('hex')}.json`);
  }

  async run(onProgress: (sentBytes: number, detail: string) => void): Promise<{ jobId: string }> {
    const state = this.resumed() ?? this.fresh();
    const held = new Set(state.sent);
    if (held.size > 0) this.out.note(`Resuming: ${held.size} of ${state.totalChunks} chunks already sent`);
    for (let attempt = 0; ; attempt++) {
      await this.send(state, held, onProgress);
      try {
        const body = { roomName: this.roomId, uploadId: state.uploadId, fileName: this.fileName, ...this.fields };
        const queued = await this.api.ok(this.api.client.POST('/api/layers/process-chunked', { body }));
        rmSync(this.stateFile, { force: true });
        return queued;
      } catch (error) {
        if (!(error instanceof ApiError) || attempt >= 2) throw error;
        // The service lost some chunks (or the whole upload): send those again.
        const missing = error.status === 404 ? [...held] : missingChunks(error);
        if (!missing) throw error;
        for (const index of missing) held.delete(index);
      }
    }
  }

  private async send(state: ChunkedState, held: Set<number>, onProgress: (sentBytes: number, detail: string) => void) {
    const bytesOf = (i: number) => Math.min(state.chunkBytes, this.size - i * state.chunkBytes);
    let sentBytes = [...held].reduce((n, i) => n + bytesOf(i), 0);
    for (let index = 0; index < state.totalChunks; index++) {
      if (held.has(index)) continue;
      const start = index * state.chunkBytes;
      const fields = {
        roomName: this.roomId,
        uploadId: state.uploadId,
        chunkIndex: String(index),
        totalChunks: String(state.totalChunks),
        fileName: this.fileName,
      };
      const part = { field: 'chunk', path: this.file, name: this.fileName, start, end: start + bytesOf(index) };
      await this.api.postForm('/api/layers/upload-chunk', fields, part, (n) =>
        onProgress(sentBytes + Math.min(n, bytesOf(index)), `sending chunk ${index + 1} of ${state.totalChunks}`),
      );
      sentBytes += bytesOf(index);
      held.add(index);
      writePrivate(this.stateFile, JSON.stringify({ ...state, sent: [...held] }));
      onProgress(sentBytes, `chunk ${index + 1} of ${state.totalChunks} sent`);
    }
  }

  /**
   * The state of an earlier run, when it describes this file as it would be sent now: the
   * same chunk size and number of chunks, an upload id as `fresh` makes them, and chunk
   * indexes within the file. Anything else (a damaged or edited file) starts over, so that
   * a state can never make the upload send fewer chunks than the file has.
   */
  private resumed(): ChunkedState | undefined {
    let state: Partial<ChunkedState>;
    try {
      state = JSON.parse(readFileSync(this.stateFile, 'utf8')) as Partial<ChunkedState>;
    } catch {
      return undefined;
    }
    const { uploadId, sent } = state ?? {};
    const bytes = chunkBytes();
    const totalChunks = Math.ceil(this.size / bytes);
    const valid =
      state?.chunkBytes === bytes &&
      state.totalChunks === totalChunks &&
      typeof uploadId === 'string' &&
      UPLOAD_ID.test(uploadId) &&
      Array.isArray(sent) &&
      sent.every((index) => Number.isInteger(index) && index >= 0 && index < totalChunks);
    return valid ? { uploadId, totalChunks, chunkBytes: bytes, sent: [...new Set(sent)] } : undefined;
  }

  private fresh(): ChunkedState {
    const bytes = chunkBytes();
    return {
      uploadId: randomUUID().replace(/-/g, ''), // UPLOAD_ID
      totalChunks: Math.ceil(this.size / bytes),
      chunkBytes: bytes,
      sent: [],
    };
  }
}
