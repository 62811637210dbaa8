import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from '../infra/blob-store.js';
import { type Entry, FILES_FOLDER } from './manifest.js';

/** How many files are copied at once (an object store answers each slowly, but in parallel). */
const AT_ONCE = 8;

/** Runs `work` on every item, `AT_ONCE` at a time; the first failure rejects (after the others end). */
async function eachAtOnce<T, R>(items: AsyncIterable<T> | T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  const running = new Set<Promise<void>>();
  let failure: unknown;
  for await (const item of items) {
    if (failure) break;
    const task = work(item)
      .then((result) => void results.push(result))
      .catch((error: unknown) => void (failure ??= error))
      .finally(() => running.delete(task));
    running.add(task);
    if (running.size >= AT_ONCE) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure;
  return results;
}

/**
 * Copies every stored file into `dir/files/<key>`, hashing it on the way. A file deleted
 * between the listing and its copy is left out (its deletion came after the backup began).
 */
export async function copyStoredFilesOut(store: BlobStore, dir: string): Promise<Entry[]> {
  const copied = await eachAtOnce(store.keys(), async (key): Promise<Entry | null> => {
    const found = await store.get(key);
    if (!found) return null;
    const relative = `${FILES_FOLDER}${key}`;
    const target = path.join(dir, relative);
    await mkdir(path.dirname(target), { recursive: true });
    const hash = createHash('sha256');
    let bytes = 0;
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(found.stream, hashing, createWriteStream(target));
    return { path: relative, bytes, sha256: hash.digest('hex') };
  });
  return copied.filter((entry) => entry !== null).sort((a, b) => a.path.localeCompare(b.path));
}

/** Stores each backed-up file under its key, adding each key stored to `stored` (to take back after a failure). */
export async function copyStoredFilesIn(store: BlobStore, dir: string, entries: Entry[], stored: string[]) {
  await eachAtOnce(entries, async (entry) => {
    const key = entry.path.slice(FILES_FOLDER.length);
    await store.put(key, createReadStream(path.join(dir, entry.path)));
    stored.push(key);
  });
}

/** Whether the store holds no file at all. */
export async function storeIsEmpty(store: BlobStore): Promise<boolean> {
  for await (const _ of store.keys()) return false;
  return true;
}
