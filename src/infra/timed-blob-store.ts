import type { BlobStore } from './blob-store.js';

/**
 * How each method of BlobStore is wrapped: `timed` (a promise, timed until it settles) or
 * `forwarded` as it is (an iterator, or a synchronous answer). Every method of the interface
 * is listed: one added to BlobStore is a type error here until it is given its way.
 */
const METHODS = {
  put: 'timed',
  putFile: 'timed',
  get: 'timed',
  read: 'timed',
  size: 'timed',
  delete: 'timed',
  deletePrefix: 'timed',
  concat: 'timed',
  keys: 'forwarded',
  clean: 'timed',
  ping: 'timed',
  localFile: 'timed',
  gdalSource: 'forwarded',
} as const satisfies Record<keyof Required<BlobStore>, 'timed' | 'forwarded'>;

/** The methods timed, as `maproom_object_store_duration_seconds` labels them (`operation`). */
export type BlobOperation = {
  [K in keyof typeof METHODS]: (typeof METHODS)[K] extends 'timed' ? K : never;
}[keyof typeof METHODS];

/** Hears how long each call of the object store took (the metrics). */
export interface BlobStoreTimer {
  objectStoreCalled(operation: BlobOperation, seconds: number): void;
}

type Method = (...args: unknown[]) => unknown;

/**
 * The store with each call timed until its promise settles: for `get` until the stream is
 * there (not the bytes sent through it), for `localFile` the download a remote store makes.
 * Anything else, including a method this file does not know yet, is the store's own,
 * forwarded; a method the store lacks (`ping`, `gdalSource`) stays absent.
 */
export function timedBlobStore(store: BlobStore, timer: BlobStoreTimer): BlobStore {
  const own = new Map<PropertyKey, unknown>();
  for (const [name, way] of Object.entries(METHODS)) {
    const method = (store as unknown as Record<string, Method | undefined>)[name];
    if (way !== 'timed' || typeof method !== 'function') continue;
    const operation = name as BlobOperation;
    own.set(name, (...args: unknown[]) => {
      const start = performance.now();
      const timed = () => timer.objectStoreCalled(operation, (performance.now() - start) / 1000);
      return (method.apply(store, args) as Promise<unknown>).finally(timed);
    });
  }
  return new Proxy(store, {
    get(target, property) {
      if (own.has(property)) return own.get(property);
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const bound = (value as Method).bind(target);
      own.set(property, bound);
      return bound;
    },
  });
}
