import type { Db } from '../../db/database.js';
import type { UploadChunksTable } from '../../db/tables.js';

/** The chunks of uploads sent in pieces (their bytes are in the blob store under `file_key`). */
export class UploadChunksRepository {
  constructor(private readonly db: Db) {}

  list(roomId: string, uploadId: string): Promise<UploadChunksTable[]> {
    return this.db
      .selectFrom('upload_chunks')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('upload_id', '=', uploadId)
      .orderBy('chunk_index')
      .execute();
  }

  /** Records a chunk, replacing one sent before with the same index. */
  async put(row: UploadChunksTable): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('upload_chunks')
        .where('room_id', '=', row.room_id)
        .where('upload_id', '=', row.upload_id)
        .where('chunk_index', '=', row.chunk_index)
        .execute();
      await trx.insertInto('upload_chunks').values(row).execute();
    });
  }

  async delete(roomId: string, uploadId: string): Promise<void> {
    await this.db.deleteFrom('upload_chunks').where('room_id', '=', roomId).where('upload_id', '=', uploadId).execute();
  }

  /** Uploads with a chunk older than `before`. */
  olderThan(before: number) {
    return this.db
      .selectFrom('upload_chunks')
      .select(['room_id', 'upload_id'])
      .where('created_at', '<', before)
      .distinct()
      .execute();
  }
}
