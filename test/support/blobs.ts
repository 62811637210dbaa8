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
    keys: () => store.keys(),
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

/** The reads `HoldingStore` can hold. */
export type HeldRead = 'read' | 'get' | 'localFile';

/**
 * The blob store, where one read can be held at the object's bytes: `hold(method, prefix)` holds
 * the next read of that kind of a key under `prefix` (a range `read` or a `get` before it reaches
 * the store; a `localFile` after it, when GDAL is about to open the path) until `letGo()`. A test
 * holds a read that has found its object, deletes the object, then lets the read go on.
 */
export class HoldingStore {
  private readonly armed: { method: HeldRead; prefix: string; reached(): void; released: Promise<void> }[] = [];

  /** Arms a hold: `reached` resolves once a read is held there; `letGo` lets it go on. */
  hold(method: HeldRead, prefix: string): { reached: Promise<void>; letGo(): void } {
    let letGo!: () => void;
    const released = new Promise<void>((resolve) => (letGo = resolve));
    const reached = new Promise<void>((resolve) => this.armed.push({ method, prefix, reached: resolve, released }));
    return { reached, letGo };
  }

  wrap(inner: BlobStore): BlobStore {
    return overriding(inner, {
      read: async (key, range) => {
        await this.wait('read', key);
        return inner.read(key, range);
      },
      get: async (key, range) => {
        await this.wait('get', key);
        return inner.get(key, range);
      },
      localFile: async (key) => {
        const local = await inner.localFile(key);
        await this.wait('localFile', key);
        return local;
      },
    });
  }

  private async wait(method: HeldRead, key: string): Promise<void> {
    const at = this.armed.findIndex((hold) => hold.method === method && key.startsWith(hold.prefix));
    if (at < 0) return;
    const [hold] = this.armed.splice(at, 1);
    hold!.reached();
    await hold!.released;
  }
}
