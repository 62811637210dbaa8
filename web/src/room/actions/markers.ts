import { api, ok } from '../../api/client';
import type { BodyOf, Marker } from '../../api/types';
import { formOf, postForm } from '../../ui/upload';
import type { RoomModel } from '../room-model';
import { withMarker, withoutMarker } from '../room-state';
import { fileLimit, refuseOversized } from '../../ui/limits';
import { t } from '../../i18n/index.js';

type MarkerPatch = BodyOf<'/api/rooms/{roomId}/markers/{markerId}', 'patch'>;

/** The one place the page writes markers: each call asks the service, then puts its answer in the model. */
export async function createMarker(model: RoomModel, body: BodyOf<'/api/rooms/{roomId}/markers', 'post'>) {
  const { marker } = await ok(api.POST('/api/rooms/{roomId}/markers', { ...model.path, body }));
  model.change((state) => withMarker(state, marker));
  return marker;
}

export async function updateMarker(model: RoomModel, markerId: string, body: MarkerPatch) {
  const path = { params: { path: { roomId: model.roomId, markerId } } };
  const { marker } = await ok(api.PATCH('/api/rooms/{roomId}/markers/{markerId}', { ...path, body }));
  model.change((state) => withMarker(state, marker));
  return marker;
}

/** Moves a marker at once on the page, and back if the service refuses. */
export async function moveMarker(model: RoomModel, markerId: string, at: { latitude: number; longitude: number }) {
  const before: Marker | undefined = model.get()?.markers.get(markerId);
  if (before) model.change((state) => withMarker(state, { ...before, ...at }));
  try {
    return await updateMarker(model, markerId, at);
  } catch (error) {
    if (before) model.change((state) => withMarker(state, before));
    throw error;
  }
}

const PHOTO_MAX_BYTES = fileLimit('POST /api/rooms/{roomId}/markers/upload-image', 'image');

/** Sends a photo (with progress), then sets it on the marker; a photo over the service's cap is refused before sending. */
export async function addMarkerPhoto(model: RoomModel, markerId: string, file: File, onProgress: (f: number) => void) {
  refuseOversized(file, PHOTO_MAX_BYTES, {
    the: t('actions:fileWords.photo.the'),
    plural: t('actions:fileWords.photo.plural'),
  });
  const { body } = await postForm<{ imageKey: string; thumbnailKey: string }>(
    `/api/rooms/${model.roomId}/markers/upload-image`,
    formOf('image', file, file.name),
    onProgress,
  );
  return updateMarker(model, markerId, { imageKey: body.imageKey, thumbnailKey: body.thumbnailKey });
}

/** Deletes a marker; with `ifLatestVersion`, only if nobody changed it since (409 `changed_since`). */
export async function deleteMarker(model: RoomModel, markerId: string, ifLatestVersion?: number) {
  const query = ifLatestVersion === undefined ? {} : { ifLatestVersion };
  await ok(
    api.DELETE('/api/rooms/{roomId}/markers/{markerId}', {
      params: { path: { roomId: model.roomId, markerId }, query },
    }),
  );
  model.change((state) => withoutMarker(state, markerId));
  return markerId;
}
