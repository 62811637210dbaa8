import { api, ok } from '../../api/client';
import type { BodyOf, RoomToken } from '../../api/types';
import { Store } from '../../store';

/** A room's API tokens, for the owner: not room content, a store of its own read again after each change. */
export class RoomTokens extends Store<RoomToken[]> {
  constructor(readonly roomId: string) {
    super([]);
  }
  get path() {
    return { params: { path: { roomId: this.roomId } } };
  }
}

/** The one place the page reads and writes API tokens. */
export async function loadTokens(tokens: RoomTokens) {
  tokens.set((await ok(api.GET('/api/rooms/{roomId}/api-tokens', tokens.path))).tokens);
}

/** Creates a token and returns its secret, which the service shows only this once. */
export async function createToken(tokens: RoomTokens, body: BodyOf<'/api/rooms/{roomId}/api-tokens', 'post'>) {
  const answer = await ok(api.POST('/api/rooms/{roomId}/api-tokens', { ...tokens.path, body }));
  await loadTokens(tokens);
  return answer.token;
}

export async function revokeToken(tokens: RoomTokens, tokenId: string) {
  await ok(
    api.DELETE('/api/rooms/{roomId}/api-tokens/{tokenId}', { params: { path: { roomId: tokens.roomId, tokenId } } }),
  );
  await loadTokens(tokens);
}
