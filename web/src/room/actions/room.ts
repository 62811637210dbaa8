import { api, fetchFile, ok } from '../../api/client';
import type { BodyOf } from '../../api/types';
import { formOf, postForm } from '../../ui/upload';
import type { RoomModel } from '../room-model';
import { fileLimit, refuseOversized } from '../../ui/limits';
import { t } from '../../i18n/index.js';

/**
 * The one place the page changes the room itself: its settings (then the room record is read
 * again, since the answers hold only part of it), clearing, deleting, exporting, importing and icons.
 */
export async function renameRoom(model: RoomModel, name: string) {
  await ok(api.PATCH('/api/rooms/{roomId}', { ...model.path, body: { name } }));
  await model.reloadRoom();
}

export async function setRoomPublic(model: RoomModel, isPublic: boolean) {
  await ok(api.PATCH('/api/rooms/{roomId}/public', { ...model.path, body: { isPublic } }));
  await model.reloadRoom();
}

export async function setCameraSettings(
  model: RoomModel,
  body: BodyOf<'/api/rooms/{roomId}/camera-settings', 'patch'>,
) {
  await ok(api.PATCH('/api/rooms/{roomId}/camera-settings', { ...model.path, body }));
  await model.reloadRoom();
}

export async function setTimelineSettings(
  model: RoomModel,
  body: BodyOf<'/api/rooms/{roomId}/timeline-settings', 'patch'>,
) {
  await ok(api.PATCH('/api/rooms/{roomId}/timeline-settings', { ...model.path, body }));
  await model.reloadRoom();
}

/** Replaces the room's own base maps (the whole list; empty clears it). */
export async function setRoomBasemaps(
  model: RoomModel,
  basemaps: BodyOf<'/api/rooms/{roomId}/basemaps', 'patch'>['basemaps'],
) {
  await ok(api.PATCH('/api/rooms/{roomId}/basemaps', { ...model.path, body: { basemaps } }));
  await model.reloadRoom();
}

/** Removes all content; the page loads the (empty) room again. */
export async function clearRoom(model: RoomModel) {
  await ok(api.POST('/api/rooms/{roomId}/clear', model.path));
  await model.load();
}

export async function deleteRoom(model: RoomModel) {
  await ok(api.DELETE('/api/rooms/{roomId}', model.path));
}

/** Exports the room as one GeoPackage: starts an export job, follows it, and fetches its file. */
export async function exportRoomFile(model: RoomModel, onStatus: (jobStatus: string) => void): Promise<Blob> {
  const { jobId } = await ok(
    api.POST('/api/rooms/{roomId}/export-jobs', { ...model.path, body: { include_tiffs: true } }),
  );
  const jobPath = { params: { path: { roomId: model.roomId, jobId } } };
  for (;;) {
    const job = await ok(api.GET('/api/rooms/{roomId}/export-jobs/{jobId}', jobPath));
    if (job.status === 'complete') break;
    if (job.status === 'error' || job.status === 'expired') throw new Error(job.error ?? t('actions:export.failed'));
    onStatus(job.status === 'pending' ? t('actions:job.waiting') : t('actions:job.inProgress'));
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const response = await fetchFile(`/api/rooms/${model.roomId}/export-jobs/${jobId}/artifact`);
  if (!response.ok) throw new Error(t('actions:export.notDownloaded', { status: response.status }));
  return response.blob();
}

/** Imports a GeoPackage (with progress of the sending); the page loads the room again. */
export async function importRoomFile(model: RoomModel, file: File, onProgress: (f: number) => void) {
  refuseOversized(file, fileLimit('POST /api/rooms/{roomId}/import', 'file'), {
    the: t('actions:fileWords.geoPackage.the'),
    plural: t('actions:fileWords.geoPackage.plural'),
  });
  const { body } = await postForm<{ imported: Record<string, number> }>(
    `/api/rooms/${model.roomId}/import`,
    formOf('file', file, file.name),
    onProgress,
  );
  await model.load();
  return body.imported;
}

/** Registers a marker icon (SVG or PNG) and reads the room's icons again. */
export async function registerIcon(model: RoomModel, file: File, name: string) {
  refuseOversized(file, fileLimit('POST /api/rooms/{roomId}/marker-icons', 'icon'), {
    the: t('actions:fileWords.icon.the'),
    plural: t('actions:fileWords.icon.plural'),
  });
  const { body } = await postForm<{ iconId: string }>(
    `/api/rooms/${model.roomId}/marker-icons`,
    formOf('icon', file, file.name, { name, size: '32' }),
  );
  const { icons } = await ok(api.GET('/api/rooms/{roomId}/marker-icons', model.path));
  model.change((state) => ({ ...state, icons }));
  return body.iconId;
}
