import { generateRoomToken, type TokenPermission } from '../../auth/room-tokens.js';
import { notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { RoomRow } from '../rooms/rooms.repository.js';
import type { TokenRow, TokensRepository } from './tokens.repository.js';

const DAY_MS = 24 * 3600 * 1000;

const presentToken = (t: TokenRow) => ({
  id: t.id,
  name: t.name,
  permissions: t.permissions.split(','),
  createdAt: t.created_at,
  expiresAt: t.expires_at,
  lastUsedAt: t.last_used_at,
});

export class TokensService {
  constructor(private readonly tokens: TokensRepository) {}

  /** Issues a token; the secret is returned this once and only its hash is kept. */
  async create(room: RoomRow, ownerId: string, input: { name: string; permissions: TokenPermission[]; expiresInDays?: number }) {
    const { secret, hash } = generateRoomToken();
    const now = Date.now();
    const id = newId('token');
    await this.tokens.insert({
      id,
      room_id: room.id,
      name: input.name.trim(),
      token_hash: hash,
      permissions: [...new Set(input.permissions)].join(','),
      created_by: ownerId,
      created_at: now,
      expires_at: now + (input.expiresInDays ?? 30) * DAY_MS,
      last_used_at: null,
    });
    return { token: secret, id };
  }

  async list(room: RoomRow) {
    return { tokens: (await this.tokens.listForRoom(room.id)).map(presentToken) };
  }

  async revoke(room: RoomRow, tokenId: string) {
    if (!(await this.tokens.delete(room.id, tokenId))) throw notFound('API token');
    return { success: true, id: tokenId };
  }
}
