import type { Db } from '../../db/database.js';
import { AppError } from '../../errors.js';
import type { BlobStore } from '../../infra/blob-store.js';

export interface NewFile {
  roomId: string;
  key: string;
  /** What the file is: `marker-image`, `marker-thumbnail`, `marker-icon`, later layers. */
  kind: string;
  contentType: string;
  data: Buffer;
  meta?: unknown;
}

const quotaExceeded = (needed: number, left: number) =>
  new AppError(413, 'quota_exceeded', "The room owner's storage quota is full", { neededBytes: needed, availableBytes: Math.max(0, left) });

/**
 * Every file a room stores, with its size, so that the room owner's quota covers all of
 * them. Files are written to the blob store first and recorded after; removal is the reverse.
 */
export class StoredFiles {
  constructor(
    private readonly db: Db,
    readonly blobs: BlobStore,
    private readonly quotaBytes: number,
  ) {}

  /** Bytes stored in all rooms owned by the owner of `roomId`. */
  async usedByOwnerOf(roomId: string): Promise<number> {
    const row = await this.db
      .selectFrom('stored_files')
      .innerJoin('rooms', 'rooms.id', 'stored_files.room_id')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('stored_files.bytes'), eb.lit(0)).as('used'))
      .where(
        'rooms.created_by',
        '=',
        this.db.selectFrom('rooms').select('created_by').where('id', '=', roomId),
      )
      .executeTakeFirstOrThrow();
    return Number(row.used);
  }

  /** Refuses with 413 quota_exceeded unless `bytes` more fit in the owner's quota. */
  async assertRoomFor(roomId: string, bytes: number): Promise<void> {
    const left = this.quotaBytes - (await this.usedByOwnerOf(roomId));
    if (bytes > left) throw quotaExceeded(bytes, left);
  }

  /** Stores the files together, or none of them when the quota cannot hold them all. */
  async store(files: NewFile[]): Promise<void> {
    if (files.length === 0) return;
    await this.assertRoomFor(files[0]!.roomId, files.reduce((n, f) => n + f.data.length, 0));
    const now = Date.now();
    try {
      for (const file of files) await this.blobs.put(file.key, file.data);
      await this.db
        .insertInto('stored_files')
        .values(
          files.map((f) => ({
            key: f.key,
            room_id: f.roomId,
            kind: f.kind,
            bytes: f.data.length,
            content_type: f.contentType,
            meta: f.meta === undefined ? null : JSON.stringify(f.meta),
            created_at: now,
          })),
        )
        .execute();
    } catch (error) {
      await Promise.all(files.map((f) => this.blobs.delete(f.key)));
      throw error;
    }
  }

  find(roomId: string, key: string) {
    return this.db
      .selectFrom('stored_files')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('key', '=', key)
      .executeTakeFirst();
  }

  /** Deletes the bytes of every file of a room (call after the room's rows are gone). */
  async keysOfRoom(roomId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('stored_files').select('key').where('room_id', '=', roomId).execute();
    return rows.map((r) => r.key);
  }

  /** Forgets the room's files of these kinds and deletes their bytes. */
  async removeKinds(roomId: string, kinds: string[]): Promise<void> {
    const rows = await this.db
      .selectFrom('stored_files')
      .select('key')
      .where('room_id', '=', roomId)
      .where('kind', 'in', kinds)
      .execute();
    await this.remove(roomId, rows.map((r) => r.key));
  }

  /** Forgets the room's files among `keys` and deletes their bytes; other rooms' are untouched. */
  async remove(roomId: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const owned = await this.db
      .selectFrom('stored_files')
      .select('key')
      .where('room_id', '=', roomId)
      .where('key', 'in', keys)
      .execute();
    const mine = owned.map((r) => r.key);
    if (mine.length === 0) return;
    await this.db.deleteFrom('stored_files').where('room_id', '=', roomId).where('key', 'in', mine).execute();
    await Promise.all(mine.map((key) => this.blobs.delete(key)));
  }
}
