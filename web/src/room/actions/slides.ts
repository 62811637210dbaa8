import { api, ok } from '../../api/client';
import type { BodyOf } from '../../api/types';
import type { RoomModel } from '../room-model';
import { withSlide, withSlideOrder, withoutSlide } from '../room-state';

/** The one place the page writes slides and the deck: each call asks the service, then updates the model. */
export async function createSlide(model: RoomModel, body: BodyOf<'/api/rooms/{roomId}/presentation/slides', 'post'>) {
  const { slide } = await ok(api.POST('/api/rooms/{roomId}/presentation/slides', { ...model.path, body }));
  model.change((state) => withSlide(state, slide));
  return slide;
}

export async function reorderSlides(model: RoomModel, slideIds: string[]) {
  await ok(api.PUT('/api/rooms/{roomId}/presentation/slides/order', { ...model.path, body: { slideIds } }));
  model.change((state) => withSlideOrder(state, slideIds));
}

export async function deleteSlide(model: RoomModel, slideId: string, ifLatestVersion?: number) {
  const query = ifLatestVersion === undefined ? {} : { ifLatestVersion };
  await ok(
    api.DELETE('/api/rooms/{roomId}/presentation/slides/{slideId}', {
      params: { path: { roomId: model.roomId, slideId }, query },
    }),
  );
  model.change((state) => withoutSlide(state, slideId));
}

export async function publishDeck(model: RoomModel, isPublic: boolean) {
  const answer = await ok(api.PATCH('/api/rooms/{roomId}/presentation/public', { ...model.path, body: { isPublic } }));
  model.change((state) => ({ ...state, room: { ...state.room, presentationIsPublic: answer.presentationIsPublic } }));
}
