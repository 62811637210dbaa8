import { api, ok } from '../../api/client';
import { t } from '../../i18n/index.js';
import type { RoomModel } from '../room-model';
import { withLayerAnswer } from '../room-state';
import { followJob } from './jobs';

/** What a refresh found: counts of features added, changed and removed (all 0: the source had not changed). */
export interface RefreshCounts {
  added: number;
  changed: number;
  removed: number;
}

/**
 * Adds a layer read from an address; resolves with its id once the service has read it (the
 * layer itself arrives through the live channel). A source that cannot be read rejects with
 * the service's reason.
 */
export async function addRemoteLayer(
  model: RoomModel,
  body: { url: string; name: string; refreshMinutes: number | null },
): Promise<string> {
  const { jobId } = await ok(
    api.POST('/api/rooms/{roomId}/layers/remote', { params: { path: { roomId: model.roomId } }, body }),
  );
  return String((await followJob(jobId, t('layers:remote.failed'))).layerId);
}

/**
 * Reads a remote layer's source again now. A refresh that changed something reaches the model
 * through the live channel; one that failed changes only the layer's `source.lastError`, which
 * is read again here so that the page says why.
 */
export async function refreshRemoteLayer(model: RoomModel, layerId: string): Promise<RefreshCounts> {
  const { jobId } = await ok(api.POST('/api/layers/{layerId}/refresh', { params: { path: { layerId } } }));
  try {
    const job = await followJob(jobId, t('layers:remote.failed'));
    return { added: Number(job.added ?? 0), changed: Number(job.changed ?? 0), removed: Number(job.removed ?? 0) };
  } finally {
    const { layers } = await ok(api.GET('/api/layers/{roomName}', { params: { path: { roomName: model.roomId } } }));
    const layer = layers.find((l) => l.id === layerId);
    if (layer) model.change((state) => withLayerAnswer(state, layer));
  }
}

/** How often a remote layer is read again (null: only when asked). */
export async function setRefreshMinutes(model: RoomModel, layerId: string, refreshMinutes: number | null) {
  const { layer } = await ok(
    api.PATCH('/api/rooms/{roomId}/layers/{layerId}', {
      params: { path: { roomId: model.roomId, layerId } },
      body: { refreshMinutes },
    }),
  );
  model.change((state) => withLayerAnswer(state, layer));
}
