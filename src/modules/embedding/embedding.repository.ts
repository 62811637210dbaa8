import type { Db } from '../../db/database.js';
import type { EmbedKeysTable } from '../../db/tables.js';

export type EmbedKeyRow = EmbedKeysTable;

/** A room's embed keys and who may frame its `/e/` pages (`embed_keys`, `room_embedding`). */
export class EmbeddingRepository {
  constructor(private readonly db: Db) {}

  async insertKey(row: EmbedKeyRow): Promise<void> {
    await this.db.insertInto('embed_keys').values(row).execute();
  }

  listKeys(roomId: string) {
    return this.db.selectFrom('embed_keys').selectAll().where('room_id', '=', roomId).orderBy('created_at').execute();
  }

  /** The key with this hash, unless the user who made it is disabled or deleted (refused like an unknown key). */
  findKeyByHash(hash: string) {
    return this.db
      .selectFrom('embed_keys')
      .selectAll()
      .where('key_hash', '=', hash)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('users')
              .select('users.id')
              .whereRef('users.id', '=', 'embed_keys.created_by')
              .where((u) => u.or([u('users.disabled_at', 'is not', null), u('users.deleted_at', 'is not', null)])),
          ),
        ),
      )
      .executeTakeFirst();
  }

  async deleteKey(roomId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('embed_keys')
      .where('room_id', '=', roomId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async touchKey(id: string, now: number): Promise<void> {
    await this.db.updateTable('embed_keys').set({ last_used_at: now }).where('id', '=', id).execute();
  }

  /** The origins set for the room (a JSON array), or null: never set, the default. */
  async origins(roomId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('room_embedding')
      .select('origins')
      .where('room_id', '=', roomId)
      .executeTakeFirst();
    return row?.origins ?? null;
  }

  async setOrigins(roomId: string, origins: string): Promise<void> {
    await this.db
      .insertInto('room_embedding')
      .values({ room_id: roomId, origins })
      .onConflict((oc) => oc.column('room_id').doUpdateSet({ origins }))
      .execute();
  }
}
