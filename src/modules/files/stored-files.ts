import type { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { quotaExceeded, unlessDeletedMeanwhile } from '../../errors.js';
import type { BlobStore, ByteRange, GdalSource } from '../../infra/blob-store.js';
import { blobKeys } from './blob-keys.js';

/** Throws the error of a recorded file whose bytes are not in the blob store (a 500 unless it was deleted meanwhile). */
const missing = (key: string): never => {
  throw new Error(`The stored file ${key} is missing`);
};

export type NewFile = {
  roomId: string;
  key: string;
  /** What the file is: `marker-image`, `marker-thumbnail`, `marker-icon`, `layer-source`, ... */
  kind: string;
  contentType: string;
  meta?: unknown;
} & ({ data: Buffer } | { path: string; bytes: number } | { alreadyStored: true; bytes: number });

const sizeOf = (file: NewFile) => ('data' in file ? file.data.length : file.bytes);

/** Reads `length` bytes from `offset` of one stored file (fewer at its end): random access for tiles. */
export type RangeReader = (offset: number, length: number) => Promise<Buffer>;

/**
 * Every file a room stores, with its size, so that the room owner's quota covers all of
 * them. Files are written to the blob store first and recorded after; removal is the reverse.
 * The modules' only way to the blob store; keys come from blob-keys.ts.
 */
export class StoredFiles {
  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly quotaBytes: number,
  ) {}

  /**
   * Moves a local file into the store without recording it: a queued import, a chunk or an
   * export artifact, which their own rows account for. Returns the size.
   */
  putUnrecorded(key: string, file: string): Promise<number> {
    return this.blobs.putFile(key, file);
  }

  /**
   * Stores the files `parts` in order as one file `key` without recording it (a chunked
   * upload's chunks assembled inside the store); the parts stay. Returns the size.
   */
  concatUnrecorded(key: string, parts: string[]): Promise<number> {
    return this.blobs.concat(key, parts);
  }

  /** The stored file as a stream (or a range of it), or null when there is none. */
  get(key: string, range?: ByteRange) {
    return this.blobs.get(key, range);
  }

  /** The bytes of a small stored file (an icon, a photo), or null when there is none. */
  read(key: string): Promise<Buffer | null> {
    return this.blobs.read(key);
  }

  /**
   * The recorded file `key` as a stream. Its bytes missing once its record is gone: a read
   * overtaken by its deletion (records go before bytes), 404 naming `what`; missing while it
   * is recorded: the service's fault, an error (500, logged).
   */
  open(key: string, what: string): Promise<{ stream: Readable; bytes: number }> {
    return this.whileRecorded(key, what, async () => (await this.blobs.get(key)) ?? missing(key));
  }

  /**
   * Random access to the recorded file `key`, block by block, never the whole file (raster
   * tiles). A read that fails once the file's record is gone is 404 naming `what` (see `open`).
   */
  rangeReader(key: string, what: string): RangeReader {
    return (offset, length) =>
      this.whileRecorded(key, what, async () => {
        const bytes = await this.blobs.read(key, { start: offset, end: offset + length - 1 });
        return bytes ?? missing(key);
      });
  }

  /**
   * GDAL's read `use` of the recorded file `key` (the raster point query): on object storage
   * through the path GDAL reads by ranges (`gdalSource`), else through `localFile`. A read that
   * fails once the file's record is gone is 404 naming `what` (see `open`).
   */
  readWithGdal<T>(key: string, what: string, use: (source: GdalSource) => Promise<T>): Promise<T> {
    return this.whileRecorded(key, what, async () => {
      // On object storage GDAL reads the few blocks it needs; a download would cost the whole file.
      const remote = this.blobs.gdalSource?.(key);
      if (remote) return use(remote);
      const local = await this.localFile(key);
      try {
        return await use({ path: local.path, env: {} });
      } finally {
        await local.release();
      }
    });
  }

  /**
   * The stored file as a local path, for GDAL only (ingest, export, clone, import): on object
   * storage this downloads the whole file. Call `release` when done.
   */
  localFile(key: string) {
    return this.blobs.localFile(key);
  }

  /** `read` of the recorded file `key`, 404 naming `what` when it fails once the record is gone. */
  private whileRecorded<T>(key: string, what: string, read: () => Promise<T>): Promise<T> {
    return unlessDeletedMeanwhile(what, () => this.isRecorded(key), read);
  }

  private async isRecorded(key: string): Promise<boolean> {
    const row = await this.db.selectFrom('stored_files').select('key').where('key', '=', key).executeTakeFirst();
    return row !== undefined;
  }

  /** Deletes the bytes of files that are not recorded (or no longer): see `putUnrecorded` and `uncount`. */
  async discard(keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.blobs.delete(key)));
  }

  /**
   * Deletes the bytes of a deleted room: its recorded files (`keys`, read before its rows
   * went) and the folders of its unrecorded ones.
   */
  async discardRoom(roomId: string, keys: string[]): Promise<void> {
    await this.discard(keys);
    for (const folder of blobKeys.unlistedFoldersOf(roomId)) await this.blobs.deletePrefix(folder);
  }

  /**
   * Bytes stored in all rooms owned by the owner of `roomId` (the member whose role is `owner`,
   * who may have been handed the room): files, vector layers' feature tables, and chunks of
   * uploads not yet assembled.
   */
  async usedByOwnerOf(roomId: string, db: Db = this.db): Promise<number> {
    const owner = db
      .selectFrom('room_members')
      .select('user_id')
      .where('room_id', '=', roomId)
      .where('role', '=', 'owner');
    const rooms = db
      .selectFrom('room_members')
      .select('room_id')
      .where('role', '=', 'owner')
      .where('user_id', 'in', owner);
    const sum = async (table: 'stored_files' | 'layers' | 'upload_chunks', column: 'bytes' | 'size_bytes') => {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>(column), eb.lit(0)).as('used'))
        .where('room_id', 'in', rooms)
        .executeTakeFirstOrThrow();
      return Number(row.used);
    };
    return (
      (await sum('stored_files', 'bytes')) + (await sum('layers', 'size_bytes')) + (await sum('upload_chunks', 'bytes'))
    );
  }

  /** Refuses with 413 quota_exceeded unless `bytes` more fit in the owner's quota (`db`: within a transaction). */
  async assertRoomFor(roomId: string, bytes: number, db: Db = this.db): Promise<void> {
    const left = this.quotaBytes - (await this.usedByOwnerOf(roomId, db));
    if (bytes > left) throw quotaExceeded(bytes, left);
  }

  /**
   * Stores the files together, or none of them when the quota cannot hold them all. A file
   * given by `path` (an upload's temporary file) is moved into the store; one `alreadyStored`
   * (assembled by `concatUnrecorded`) is only recorded, and deleted when refused.
   */
  async store(files: NewFile[]): Promise<void> {
    if (files.length === 0) return;
    await this.assertRoomFor(
      files[0]!.roomId,
      files.reduce((n, f) => n + sizeOf(f), 0),
    );
    const now = Date.now();
    try {
      for (const file of files) {
        if ('data' in file) await this.blobs.put(file.key, file.data);
        else if ('path' in file) await this.blobs.putFile(file.key, file.path);
      }
      await this.db
        .insertInto('stored_files')
        .values(
          files.map((f) => ({
            key: f.key,
            room_id: f.roomId,
            kind: f.kind,
            bytes: sizeOf(f),
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

  /** The keys of every file of a room (read before its rows go, for `discardRoom`). */
  async keysOfRoom(roomId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('stored_files').select('key').where('room_id', '=', roomId).execute();
    return rows.map((r) => r.key);
  }

  /** The room's files of these kinds, oldest first. */
  listKinds(roomId: string, kinds: string[]) {
    return this.db
      .selectFrom('stored_files')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('kind', 'in', kinds)
      .orderBy('created_at')
      .orderBy('key')
      .execute();
  }

  /** Forgets the room's files of these kinds and deletes their bytes. */
  async removeKinds(roomId: string, kinds: string[]): Promise<void> {
    const rows = await this.db
      .selectFrom('stored_files')
      .select('key')
      .where('room_id', '=', roomId)
      .where('kind', 'in', kinds)
      .execute();
    await this.remove(
      roomId,
      rows.map((r) => r.key),
    );
  }

  /** Forgets the room's files whose keys start with `prefix` (a layer's folder) and deletes their bytes. */
  async removeUnder(roomId: string, prefix: string): Promise<void> {
    const rows = await this.db
      .selectFrom('stored_files')
      .select('key')
      .where('room_id', '=', roomId)
      .where(sql`substr(key, 1, ${prefix.length})`, '=', prefix)
      .execute();
    await this.remove(
      roomId,
      rows.map((r) => r.key),
    );
  }

  /**
   * Stops counting a file whose bytes stay where they are, for whoever holds them to delete
   * (a queued upload once its job runs: from then on what the job stores counts instead).
   */
  async uncount(roomId: string, key: string): Promise<void> {
    await this.db.deleteFrom('stored_files').where('room_id', '=', roomId).where('key', '=', key).execute();
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
