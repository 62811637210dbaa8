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
    ...overrides,
  };
}
