import { api, ok } from '../../api/client';
import type { BodyOf } from '../../api/types';
import type { RoomModel } from '../room-model';
import { withComment, withoutComment, withoutReply, withReply } from '../room-state';

/** The one place the page writes comments and replies: each call asks the service, then updates the model. */
export async function postComment(model: RoomModel, body: BodyOf<'/api/rooms/{roomId}/comments', 'post'>) {
  const { comment } = await ok(api.POST('/api/rooms/{roomId}/comments', { ...model.path, body }));
  model.change((state) => withComment(state, comment));
}

const commentPath = (model: RoomModel, commentId: string) => ({
  params: { path: { roomId: model.roomId, commentId } },
});

export async function resolveComment(model: RoomModel, commentId: string, resolved: boolean) {
  const { comment } = await ok(
    api.PATCH('/api/rooms/{roomId}/comments/{commentId}', { ...commentPath(model, commentId), body: { resolved } }),
  );
  model.change((state) => withComment(state, comment));
}

export async function deleteComment(model: RoomModel, commentId: string, ifLatestVersion?: number) {
  const query = ifLatestVersion === undefined ? {} : { ifLatestVersion };
  await ok(
    api.DELETE('/api/rooms/{roomId}/comments/{commentId}', {
      params: { ...commentPath(model, commentId).params, query },
    }),
  );
  model.change((state) => withoutComment(state, commentId));
}

export async function postReply(model: RoomModel, commentId: string, body: string) {
  const { reply } = await ok(
    api.POST('/api/rooms/{roomId}/comments/{commentId}/replies', { ...commentPath(model, commentId), body: { body } }),
  );
  model.change((state) => withReply(state, reply));
}

export async function deleteReply(model: RoomModel, commentId: string, replyId: string, ifLatestVersion?: number) {
  const query = ifLatestVersion === undefined ? {} : { ifLatestVersion };
  await ok(
    api.DELETE('/api/rooms/{roomId}/comments/{commentId}/replies/{replyId}', {
      params: { path: { roomId: model.roomId, commentId, replyId }, query },
    }),
  );
  model.change((state) => withoutReply(state, replyId));
}
