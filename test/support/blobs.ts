import type { BlobStore } from '../../src/infra/blob-store.js';

/** The store with some methods replaced (to count or record what goes through it); the others are its own. */
export function overriding(store: BlobStore, overrides: Partial<BlobStore>): BlobStore {
  return {
    put: (key, data) => store.put(key, data),
    putFile: (key, file) => store.putFile(key, file),
    get: (key, range) => store.get(key, range),
    read: (key, range) => store.read(key, range),
    size: (key) => store.size(key),
    delete: (key) => store.delete(key),
    deletePrefix: (prefix) => store.deletePrefix(prefix),
    clean: () => store.clean(),
    localFile: (key) => store.localFile(key),
    concat: (key, parts) => store.concat(key, parts),
    ...(store.gdalSource && { gdalSource: (key: string) => store.gdalSource!(key) }),
    ...(store.ping && { ping: () => store.ping!() }),
    ...overrides,
  };
}

/** The blob store with a record of what was read through it. */
export class CountingStore {
  /** Bytes read by range, per key. */
  readonly ranges = new Map<string, number>();
  /** Keys read whole (get without a range, read without a range) or asked for as a local file. */
  readonly whole: string[] = [];

  constructor(private readonly inner: BlobStore) {}

  /** Each `concat`'s target and parts. */
  readonly concats: { key: string; parts: string[] }[] = [];

  reset() {
    this.ranges.clear();
    this.whole.length = 0;
    this.concats.length = 0;
  }

  wrap(): BlobStore {
    const inner = this.inner;
    return overriding(inner, {
      get: (key, range) => {
        if (!range) this.whole.push(`get ${key}`);
        return inner.get(key, range);
      },
      read: async (key, range) => {
        const bytes = await inner.read(key, range);
        if (!range) this.whole.push(`read ${key}`);
        else this.ranges.set(key, (this.ranges.get(key) ?? 0) + (bytes?.length ?? 0));
        return bytes;
      },
      concat: (key, parts) => {
        this.concats.push({ key, parts });
        return inner.concat(key, parts);
      },
      localFile: (key) => {
        this.whole.push(`localFile ${key}`);
        return inner.localFile(key);
      },
    });
  }

  sizeOf(key: string) {
    return this.inner.size(key);
  }
}
