import type { Caller } from '../../auth/access.js';
import type { RoomRow } from '../../db/tables.js';
import { badRequest, invalidField, notFound } from '../../errors.js';
import type { UploadedFile } from '../../http/uploads.js';
import { newId } from '../../ids.js';
import { blobKeys } from '../files/blob-keys.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { Uploads } from './uploads.js';
import type { UploadFields } from './uploads.schemas.js';
import type { UploadChunksRepository } from './upload-chunks.repository.js';

/** The largest file a chunked upload may assemble (the interface's 2 GiB). */
export const CHUNKED_MAX_BYTES = 2 * 1024 ** 3;
/** Unfinished uploads are removed after this long. */
export const CHUNK_LIFETIME_MS = 24 * 3600 * 1000;
const UPLOAD_ID = /^[A-Za-z0-9_-]{8,64}$/;

export interface ChunkFields {
  uploadId?: string;
  chunkIndex?: string;
  totalChunks?: string;
  fileName?: string;
}

const integer = (field: string, text: string | undefined, min: number, max: number) => {
  const value = /^\d+$/.test(text ?? '') ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw invalidField(field, `must be an integer from ${min} to ${max}`);
  return value;
};

/**
 * Chunked upload (decisions: "Chunked upload"): a file over 50 MB is sent in chunks of at
 * most 50 MB under a client-chosen `uploadId`; each chunk is kept in the blob store (and
 * counts against the quota) until `process-chunked` assembles them in order inside the blob
 * store (BlobStore.concat: on S3 a multipart upload) and hands the file to the same job as a
 * large upload. Chunks may reach different instances: nothing is kept on one instance's disk
 * between requests. Sending a chunk again replaces it.
 */
export class ChunkedUploads {
  constructor(
    private readonly chunkRows: UploadChunksRepository,
    private readonly files: StoredFiles,
    private readonly uploads: Uploads,
  ) {}

  async receiveChunk(room: RoomRow, chunk: UploadedFile, fields: ChunkFields) {
    const uploadId = fields.uploadId ?? '';
    if (!UPLOAD_ID.test(uploadId))
      throw invalidField('uploadId', 'must be 8 to 64 characters from A-Z, a-z, 0-9, _ and -');
    const totalChunks = integer('totalChunks', fields.totalChunks, 1, 100_000);
    const chunkIndex = integer('chunkIndex', fields.chunkIndex, 0, totalChunks - 1);
    const fileName = (fields.fileName ?? '').trim();
    if (!fileName || fileName.length > 255) throw invalidField('fileName', 'must be 1 to 255 characters');
    const held = await this.chunkRows.list(room.id, uploadId);
    const other = held.find((c) => c.total_chunks !== totalChunks || c.file_name !== fileName);
    if (other)
      throw badRequest(
        `This upload was started with totalChunks ${other.total_chunks} and fileName "${other.file_name}"`,
      );
    const replaced = held.find((c) => c.chunk_index === chunkIndex);
    const bytes = held.reduce((n, c) => n + (c.chunk_index === chunkIndex ? 0 : Number(c.bytes)), 0) + chunk.bytes;
    if (bytes > CHUNKED_MAX_BYTES)
      throw badRequest(`The chunks add up to more than ${CHUNKED_MAX_BYTES} bytes (2 GiB)`);
    await this.files.assertRoomFor(room.id, chunk.bytes - Number(replaced?.bytes ?? 0));
    const fileKey = blobKeys.uploadChunk(room.id, uploadId, chunkIndex, newId('part'));
    await this.files.putUnrecorded(fileKey, chunk.path);
    await this.chunkRows.put({
      room_id: room.id,
      upload_id: uploadId,
      chunk_index: chunkIndex,
      total_chunks: totalChunks,
      file_name: fileName,
      file_key: fileKey,
      bytes: chunk.bytes,
      created_at: Date.now(),
    });
    if (replaced) await this.files.discard([replaced.file_key]);
    return { uploadId, chunkIndex, received: held.length + (replaced ? 0 : 1) };
  }

  /** Assembles the chunks in order and queues the file's job: 202 `{jobId}`; a missing chunk is 400 naming it. */
  async process(
    room: RoomRow,
    caller: Caller,
    input: { uploadId: string; fileName: string } & UploadFields,
    requestId: string,
  ) {
    const held = await this.chunkRows.list(room.id, input.uploadId);
    if (held.length === 0) throw notFound('Upload');
    const total = held[0]!.total_chunks;
    const byIndex = new Map(held.map((c) => [c.chunk_index, c]));
    const missing = Array.from({ length: total }, (_, i) => i).filter((i) => !byIndex.has(i));
    if (missing.length) {
      throw badRequest(
        `Chunk ${missing[0]} of ${total} is missing${missing.length > 1 ? ` (and ${missing.length - 1} more)` : ''}`,
        [{ field: 'chunkIndex', message: `missing: ${missing.slice(0, 20).join(', ')}` }],
      );
    }
    // Checked again here: chunks sent in parallel each passed the check alone.
    const heldBytes = held.reduce((n, c) => n + Number(c.bytes), 0);
    if (heldBytes > CHUNKED_MAX_BYTES)
      throw badRequest(`The chunks add up to more than ${CHUNKED_MAX_BYTES} bytes (2 GiB)`);
    const meta = this.uploads.metaOf(input, input.fileName);
    // Assembled inside the blob store (on S3 a multipart upload): no instance holds the file.
    const queued = this.uploads.queuedFile(room.id, input.fileName);
    const chunkKeys = Array.from({ length: total }, (_, i) => byIndex.get(i)!.file_key);
    const bytes = await this.files.concatUnrecorded(queued.fileKey, chunkKeys).catch((error: NodeJS.ErrnoException) => {
      // A chunk whose bytes went (its upload was swept meanwhile).
      if (error.code === 'ENOENT') throw badRequest('A chunk of this upload is missing: send it again');
      throw error;
    });
    try {
      // The chunks stop counting before the assembled file is counted in their place (a file
      // that is then refused is refused for good: its chunks are gone with it).
      await this.forget(room.id, input.uploadId);
      return await this.uploads.queueStored(room, caller, { ...queued, bytes }, meta, requestId);
    } catch (error) {
      await this.files.discard([queued.fileKey]);
      throw error;
    }
  }

  /** Removes uploads whose chunks are older than a day. */
  async sweep(now = Date.now()): Promise<void> {
    for (const upload of await this.chunkRows.olderThan(now - CHUNK_LIFETIME_MS))
      await this.forget(upload.room_id, upload.upload_id);
  }

  private async forget(roomId: string, uploadId: string) {
    const held = await this.chunkRows.list(roomId, uploadId);
    await this.chunkRows.delete(roomId, uploadId);
    await this.files.discard(held.map((c) => c.file_key));
  }
}
