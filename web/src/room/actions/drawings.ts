import { api, ok } from '../../api/client';
import type { BodyOf } from '../../api/types';
import type { RoomModel } from '../room-model';
import { withDrawing, withoutDrawing } from '../room-state';

/** The one place the page writes drawings: each call asks the service, then puts its answer in the model. */
export async function createDrawing(model: RoomModel, body: BodyOf<'/api/rooms/{roomId}/drawings', 'post'>) {
  const { drawing } = await ok(api.POST('/api/rooms/{roomId}/drawings', { ...model.path, body }));
  model.change((state) => withDrawing(state, drawing));
  return drawing;
}

export async function updateDrawing(
  model: RoomModel,
  drawingId: string,
  body: BodyOf<'/api/rooms/{roomId}/drawings/{drawingId}', 'patch'>,
) {
  const path = { params: { path: { roomId: model.roomId, drawingId } } };
  const { drawing } = await ok(api.PATCH('/api/rooms/{roomId}/drawings/{drawingId}', { ...path, body }));
  model.change((state) => withDrawing(state, drawing));
  return drawing;
}

export async function deleteDrawing(model: RoomModel, drawingId: string, ifLatestVersion?: number) {
  const query = ifLatestVersion === undefined ? {} : { ifLatestVersion };
  const path = { params: { path: { roomId: model.roomId, drawingId }, query } };
  await ok(api.DELETE('/api/rooms/{roomId}/drawings/{drawingId}', path));
  model.change((state) => withoutDrawing(state, drawingId));
  return drawingId;
}
