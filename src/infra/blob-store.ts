import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A byte range, both ends included (as HTTP ranges count). */
export interface ByteRange {
  start: number;
  end: number;
}

/** Where files live: the local disk under DATA_DIR now, S3-compatible storage later. */
export interface BlobStore {
  /** Stores the bytes atomically (readers see the whole file or nothing); returns the size. */
  put(key: string, data: Buffer | Readable): Promise<number>;
  /** Moves a local file in (it is gone from `file` afterwards), atomically; returns the size. */
  putFile(key: string, file: string): Promise<number>;
  /** The stored file (or a range of it), or null when there is none; `bytes` is the whole size. */
  get(key: string, range?: ByteRange): Promise<{ stream: Readable; bytes: number } | null>;
  /** Bytes `start` to `end` (included) of a stored file, for random access (raster tiles). */
  read(key: string, range: ByteRange): Promise<Buffer>;
  delete(key: string): Promise<void>;
  /** Removes every file whose key starts with `prefix` (a folder such as `markers/<roomId>/`). */
  deletePrefix(prefix: string): Promise<void>;
  /** Removes what a crash left half-written. */
  clean(): Promise<void>;
  /**
   * The stored file as a local file, for tools that need a path (GDAL): on disk, the file
   * itself; a remote store would download it. Call `release` when done with it.
   */
  localFile(key: string): Promise<{ path: string; release(): Promise<void> }>;
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
    const file = this.file(key);
    try {
      const info = await stat(file);
      if (!info.isFile()) return null;
      return { stream: createReadStream(file, range), bytes: info.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async read(key: string, range: ByteRange): Promise<Buffer> {
    const handle = await open(this.file(key), 'r');
    try {
      const buffer = Buffer.alloc(range.end - range.start + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, range.start);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    const folder = prefix.replace(/\/+$/, '');
    await rm(this.file(folder), { recursive: true, force: true });
  }

  async clean(): Promise<void> {
    await rm(this.tmp, { recursive: true, force: true });
  }

  async localFile(key: string) {
    return { path: this.file(key), release: async () => undefined };
  }
}
