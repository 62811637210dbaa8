import type { AccessChanges } from '../../auth/access-source.js';
import { generateRoomToken, type TokenPermission } from '../../auth/room-tokens.js';
import { notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { RoomRow } from '../../db/tables.js';
import { presentToken } from './tokens.presenter.js';
import type { TokensRepository } from './tokens.repository.js';

/** A unit: `expiresInDays` counts days. */
const DAY_MS = 24 * 3600 * 1000;

export class TokensService {
  constructor(
    private readonly tokens: TokensRepository,
    private readonly access: AccessChanges,
  ) {}

  /** Issues a token; the secret is returned this once and only its hash is kept. */
  async create(
    room: RoomRow,
    ownerId: string,
    input: { name: string; permissions: TokenPermission[]; expiresInDays?: number },
  ) {
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
    this.access.forgetTokens();
    return { success: true, id: tokenId };
  }

  /** Notes a use of the token (the authenticator calls this at most once a minute per token). */
  async recordUse(tokenId: string, at: number): Promise<void> {
    await this.tokens.touch(tokenId, at);
  }
}
