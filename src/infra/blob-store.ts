import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, type FileHandle, mkdir, open, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A byte range, both ends included (as HTTP ranges count). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where files live: the local disk under DATA_DIR now, S3-compatible storage later. Keys are
 * made in one place only (modules/files/blob-keys.ts), and modules reach the store through
 * StoredFiles, never directly. test/infra/blob-store-contract.test.ts holds every implementation to
 * this contract.
 */
export interface BlobStore {
  /** Stores the bytes atomically (readers see the whole file or nothing); returns the size. */
  put(key: string, data: Buffer | Readable): Promise<number>;
  /** Moves a local file in (it is gone from `file` afterwards), atomically; returns the size. */
  putFile(key: string, file: string): Promise<number>;
  /** The stored file (or a range of it) as a stream, or null when there is none; `bytes` is the whole size. */
  get(key: string, range?: ByteRange): Promise<{ stream: Readable; bytes: number } | null>;
  /**
   * The bytes of a stored file, or of the range `start` to `end` (both included), or null when
   * there is none. A range past the end gives the bytes up to the end (none when it starts
   * there or beyond). For small files and random access (raster tiles read blocks this way).
   */
  read(key: string, range?: ByteRange): Promise<Buffer | null>;
  /** The size of a stored file in bytes, or null when there is none. */
  size(key: string): Promise<number | null>;
  delete(key: string): Promise<void>;
  /** Removes every file whose key starts with `prefix` (a folder such as `markers/<roomId>/`). */
  deletePrefix(prefix: string): Promise<void>;
  /**
   * Stores the files `parts`, in this order, as one file `key` (the parts stay), atomically;
   * returns the size. Rejects when a part is missing. Chunked uploads are assembled this way,
   * without passing through the instance (on S3, a multipart upload copying the parts).
   */
  concat(key: string, parts: string[]): Promise<number>;
  /** Every stored key, in no particular order (what a backup copies). */
  keys(): AsyncIterable<string>;
  /** Removes what a crash left half-written. */
  clean(): Promise<void>;
  /** Resolves when the store answers a cheap request (GET /api/ready); rejects when it is unreachable. */
  ping?(): Promise<void>;
  /**
   * The stored file as a local file, for tools that need a path: on disk, the file itself; a
   * remote store downloads it, so this costs the whole file. Only GDAL's work may ask for it:
   * ingesting an upload, exporting a room, cloning or importing rasters, and the raster point
   * query (gdallocationinfo on the source file). Other reads (tiles, photos, icons) use `get`
   * or `read`. Rejects when there is no such file; call `release` when done with it.
   */
  localFile(key: string): Promise<{ path: string; release(): Promise<void> }>;
  /**
   * Where GDAL can read the stored file by byte ranges without a download (an object store's
   * virtual path, such as `/vsis3/bucket/key`, and the GDAL configuration that reaches it), or
   * none: then `localFile` is the way. For small reads of big files: the raster point query.
   */
  gdalSource?(key: string): GdalSource;
}

/** A path GDAL opens by itself, with the configuration options (environment) it needs. */
export interface GdalSource {
  path: string;
  env: Record<string, string>;
}

/** The error of a missing key where there is no null to answer (`localFile`). */
export function blobMissing(key: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`No stored file ${key}`), { code: 'ENOENT' });
}

/** Refuses a range that is not `0 <= start <= end + 1` in whole numbers. */
export function assertRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start - 1) {
    throw new RangeError(`Invalid byte range ${start}-${end}`);
  }
}

const KEY = /^(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*\/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** Keys are relative paths of safe segments: no `..`, no absolute paths, no backslashes. */
export function assertSafeKey(key: string): void {
  if (!KEY.test(key) || key.split('/').some((segment) => segment.startsWith('..'))) {
    throw new Error(`Unsafe blob key: ${key}`);
  }
}

/**
 * Files under a root folder. Writes go to `<root>/.tmp` first and are renamed into place, so
 * a crash leaves only files in `.tmp`, which `clean` removes at start.
 */
export class FileBlobStore implements BlobStore {
  private readonly tmp: string;

  constructor(private readonly root: string) {
    this.tmp = path.join(root, '.tmp');
  }

  private file(key: string) {
    assertSafeKey(key);
    return path.join(this.root, key);
  }

  private async temporary(): Promise<string> {
    await mkdir(this.tmp, { recursive: true });
    return path.join(this.tmp, randomBytes(12).toString('hex'));
  }

  private async place(temporary: string, key: string): Promise<number> {
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const { size } = await stat(temporary);
    await rename(temporary, target);
    return size;
  }

  async put(key: string, data: Buffer | Readable): Promise<number> {
    this.file(key);
    const temporary = await this.temporary();
    try {
      await pipeline(
        Buffer.isBuffer(data) ? Readable.from([data]) : data,
        createWriteStream(temporary, { flush: true }),
      );
      return await this.place(temporary, key);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  async putFile(key: string, file: string): Promise<number> {
    this.file(key);
    const temporary = await this.temporary();
    try {
      await rename(file, temporary).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EXDEV') throw error;
        await copyFile(file, temporary); // another file system: copy, then drop the original
        await unlink(file);
      });
      return await this.place(temporary, key);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  async get(key: string, range?: ByteRange) {
    if (range) assertRange(range);
    let handle: FileHandle;
    try {
      handle = await open(this.file(key), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) {
        await handle.close();
        return null;
      }
      // The stream reads the file opened here: a deletion of the key from now on does not cut it short.
      return { stream: handle.createReadStream(range ?? {}), bytes: info.size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Buffer | null> {
    if (range) assertRange(range);
    const file = this.file(key);
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) return null;
      const start = range?.start ?? 0;
      const end = Math.min(range?.end ?? info.size - 1, info.size - 1);
      const buffer = Buffer.alloc(Math.max(0, end - start + 1));
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, start + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      const info = await stat(this.file(key));
      return info.isFile() ? info.size : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    const folder = prefix.replace(/\/+$/, '');
    await rm(this.file(folder), { recursive: true, force: true });
  }

  async concat(key: string, parts: string[]): Promise<number> {
    this.file(key);
    const files = parts.map((part) => this.file(part));
    const temporary = await this.temporary();
    try {
      for (const [i, file] of files.entries())
        await pipeline(createReadStream(file), createWriteStream(temporary, { flags: i === 0 ? 'w' : 'a' }));
      if (files.length === 0) await writeFile(temporary, '');
      return await this.place(temporary, key);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  async *keys(): AsyncIterable<string> {
    const entries = await readdir(this.root, { recursive: true, withFileTypes: true }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [];
        throw error;
      },
    );
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const key = path.relative(this.root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
      if (!key.startsWith('.tmp/')) yield key;
    }
  }

  async clean(): Promise<void> {
    await rm(this.tmp, { recursive: true, force: true });
  }

  /** The root folder is there (or can be made: a fresh service has stored nothing yet). */
  async ping(): Promise<void> {
    await mkdir(this.root, { recursive: true });
  }

  async localFile(key: string) {
    if ((await this.size(key)) === null) throw blobMissing(key);
    return { path: this.file(key), release: async () => undefined };
  }
}
