import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Where files live: the local disk under DATA_DIR now, S3-compatible storage later. */
export interface BlobStore {
  /** Stores the bytes atomically (readers see the whole file or nothing); returns the size. */
  put(key: string, data: Buffer | Readable): Promise<number>;
  /** The stored file, or null when there is none. */
  get(key: string): Promise<{ stream: Readable; bytes: number } | null>;
  delete(key: string): Promise<void>;
  /** Removes every file whose key starts with `prefix` (a folder such as `markers/<roomId>/`). */
  deletePrefix(prefix: string): Promise<void>;
}

const KEY = /^(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*\/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** Keys are relative paths of safe segments: no `..`, no absolute paths, no backslashes. */
export function assertSafeKey(key: string): void {
  if (!KEY.test(key) || key.split('/').some((segment) => segment.startsWith('..'))) {
    throw new Error(`Unsafe blob key: ${key}`);
  }
}

export class FileBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private file(key: string) {
    assertSafeKey(key);
    return path.join(this.root, key);
  }

  async put(key: string, data: Buffer | Readable): Promise<number> {
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.${randomBytes(6).toString('hex')}.partial`;
    try {
      await pipeline(Buffer.isBuffer(data) ? Readable.from([data]) : data, createWriteStream(temporary, { flush: true }));
      const { size } = await stat(temporary);
      await rename(temporary, target);
      return size;
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  async get(key: string) {
    const file = this.file(key);
    try {
      const { size, isFile } = await stat(file).then((s) => ({ size: s.size, isFile: s.isFile() }));
      if (!isFile) return null;
      return { stream: createReadStream(file), bytes: size };
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
}
