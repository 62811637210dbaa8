import { api, ok } from '../../api/client';
import type { BodyOf, Colormap, Layer } from '../../api/types';
import type { RoomModel } from '../room-model';
import { withLayerAnswer, withoutLayer, withoutRaster, withRasterAnswer } from '../room-state';

/**
 * The one place the page writes vector layers and rasters (uploads: actions/layer-upload.ts; the
 * layers they make arrive through the live channel).
 */
export async function updateLayerStyle(model: RoomModel, layerId: string, style: Partial<Layer['style']>) {
  const { layer } = await ok(
    api.PATCH('/api/rooms/{roomId}/layers/{layerId}', {
      params: { path: { roomId: model.roomId, layerId } },
      body: { style },
    }),
  );
  model.change((state) => withLayerAnswer(state, layer));
  return layer;
}

export async function deleteLayer(model: RoomModel, layerId: string) {
  await ok(api.DELETE('/api/layers/{layerId}', { params: { path: { layerId } } }));
  model.change((state) => withoutLayer(state, layerId));
}

export async function updateRasterDisplay(
  model: RoomModel,
  layerId: string,
  body: BodyOf<'/api/rooms/{roomId}/raster-layers/{layerId}/display', 'patch'>,
) {
  const { rasterLayer } = await ok(
    api.PATCH('/api/rooms/{roomId}/raster-layers/{layerId}/display', {
      params: { path: { roomId: model.roomId, layerId } },
      body,
    }),
  );
  model.change((state) => withRasterAnswer(state, rasterLayer));
  return rasterLayer;
}

/** Rasters are deleted through the layers' route, which takes both kinds. */
export async function deleteRaster(model: RoomModel, layerId: string) {
  await ok(api.DELETE('/api/layers/{layerId}', { params: { path: { layerId } } }));
  model.change((state) => withoutRaster(state, layerId));
}

let colormaps: Promise<Colormap[]> | null = null;
/** The service's colormaps for rasters (a read, for display; asked once per page). */
export function readColormaps() {
  colormaps ??= ok(api.GET('/api/colormaps')).then((answer) => answer.colormaps);
  colormaps.catch(() => (colormaps = null));
  return colormaps;
}
