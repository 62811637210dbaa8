import { api, ok } from '../../api/client';
import type { BodyOf, EmbedKey } from '../../api/types';
import { Store } from '../../store';

/** A room's embed keys, for the owner: a store of its own, read again after each change. */
export class RoomEmbedKeys extends Store<EmbedKey[]> {
  constructor(readonly roomId: string) {
    super([]);
  }
  get path() {
    return { params: { path: { roomId: this.roomId } } };
  }
}

/** The one place the page reads and writes embed keys and the sites that may frame a room. */
export async function loadEmbedKeys(keys: RoomEmbedKeys) {
  keys.set((await ok(api.GET('/api/rooms/{roomId}/embed-keys', keys.path))).keys);
}

/** Creates a key and returns it whole, its secret shown only this once. */
export async function createEmbedKey(keys: RoomEmbedKeys, body: BodyOf<'/api/rooms/{roomId}/embed-keys', 'post'>) {
  const created = await ok(api.POST('/api/rooms/{roomId}/embed-keys', { ...keys.path, body }));
  await loadEmbedKeys(keys);
  return created;
}

export async function revokeEmbedKey(keys: RoomEmbedKeys, keyId: string) {
  await ok(api.DELETE('/api/rooms/{roomId}/embed-keys/{keyId}', { params: { path: { roomId: keys.roomId, keyId } } }));
  await loadEmbedKeys(keys);
}

/** The sites that may frame the room's embed (`["*"]`: any). */
export async function readEmbedOrigins(roomId: string): Promise<string[]> {
  return (await ok(api.GET('/api/rooms/{roomId}/embedding', { params: { path: { roomId } } }))).origins;
}

export async function saveEmbedOrigins(roomId: string, origins: string[]): Promise<string[]> {
  return (await ok(api.PATCH('/api/rooms/{roomId}/embedding', { params: { path: { roomId } }, body: { origins } })))
    .origins;
}
