import { ApiError, api, ok } from '../../api/client';
import { formOf, postForm } from '../../ui/upload';
import type { RoomModel } from '../room-model';
import { CHUNKED_FILE_MAX_BYTES, fileLimit, refuseOversized } from '../../ui/limits';
import { t } from '../../i18n/index.js';
import { progressInWords } from './job-words';
import { followJob } from './jobs';

/** Files above this go in chunks: the most the service takes in one request. */
export const CHUNKED_ABOVE = fileLimit('POST /api/layers/upload', 'file');
const CHUNK_BYTES = 16 * 1024 * 1024;

export interface UploadProgress {
  phase: 'sending' | 'processing' | 'done';
  /** 0..1 of the phase. */
  fraction: number;
  message?: string;
}

/** How an upload ended: on the map, or refused because the file's CRS is unknown (the service's words). */
export type UploadOutcome = { done: true } | { crsUnknown: string };

/**
 * What the file is sent as: `layer` a vector layer (or raster) whatever its features, points
 * included; `markers` a file of points made markers (the service refuses any other feature).
 * The page never sends the service's default, which decides by content.
 */
export interface UploadChoice {
  as: 'layer' | 'markers';
  /** The new layer's colour (hex without `#`); not sent for markers. */
  color?: string;
  /** The EPSG code of the file's coordinates, for a file that names no CRS. */
  sourceCrs?: string;
}

/**
 * Uploads a layer file (GeoJSON, zipped shapefile, GeoPackage, CSV, KML/KMZ, GPX, FlatGeobuf or
 * GeoTIFF) as `choice.as` says: in one request up to 50 MB, else in 16 MB chunks; then follows
 * the processing job, if any, until it is done. The layer or markers it makes reach the model
 * through the live channel. `sourceCrs` (an EPSG code) says which CRS the file's coordinates
 * are in; a file that names none and is not in longitude/latitude answers `crsUnknown`, for
 * the page to ask for one.
 */
export async function uploadLayerFile(
  model: RoomModel,
  file: File,
  choice: UploadChoice,
  onProgress: (p: UploadProgress) => void,
): Promise<UploadOutcome> {
  try {
    await sendLayerFile(model, file, choice, onProgress);
    return { done: true };
  } catch (error) {
    if (error instanceof ApiError && error.code === 'unknown_crs') return { crsUnknown: error.message };
    throw error;
  }
}

async function sendLayerFile(
  model: RoomModel,
  file: File,
  { as, color, sourceCrs }: UploadChoice,
  onProgress: (p: UploadProgress) => void,
): Promise<void> {
  refuseOversized(file, CHUNKED_FILE_MAX_BYTES, {
    the: t('actions:fileWords.layer.the'),
    plural: t('actions:fileWords.layer.plural'),
  });
  const roomId = model.roomId;
  const style = color ? JSON.stringify({ color }) : undefined;
  let jobId: string | undefined;
  if (file.size <= CHUNKED_ABOVE) {
    const { status, body } = await postForm<{ jobId?: string }>(
      '/api/layers/upload',
      formOf('file', file, file.name, { roomName: roomId, as, style, sourceCrs }),
      (f) => onProgress({ phase: 'sending', fraction: f }),
    );
    if (status === 202) jobId = body.jobId;
  } else {
    const uploadId = crypto.randomUUID().replace(/-/g, '');
    const totalChunks = Math.ceil(file.size / CHUNK_BYTES);
    for (let index = 0; index < totalChunks; index++) {
      const chunk = file.slice(index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES);
      const fields = {
        roomName: roomId,
        uploadId,
        chunkIndex: String(index),
        totalChunks: String(totalChunks),
        fileName: file.name,
      };
      await postForm('/api/layers/upload-chunk', formOf('chunk', chunk, file.name, fields), (f) =>
        onProgress({ phase: 'sending', fraction: (index + f) / totalChunks }),
      );
    }
    jobId = (
      await ok(
        api.POST('/api/layers/process-chunked', {
          body: {
            roomName: roomId,
            uploadId,
            fileName: file.name,
            as,
            ...(style && { style }),
            ...(sourceCrs && { sourceCrs }),
          },
        }),
      )
    ).jobId;
  }
  if (jobId)
    await followJob(jobId, t('actions:upload.failed'), (fraction, job) => {
      const message =
        job.stage === 'queued' ? t('actions:job.waiting') : job.message ? progressInWords(job.message) : undefined;
      onProgress({ phase: 'processing', fraction, message });
    });
  onProgress({ phase: 'done', fraction: 1 });
}
