/**
 * The BlobStore contract (test/support/blob-store-contract.ts) held against the store on
 * disk; another implementation (object storage) runs the same suite with its own factory.
 * Then what only the disk store promises: a failed write leaves no temporary file behind.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { FileBlobStore } from '../../src/infra/blob-store.js';
import { blobStoreContract } from '../support/blob-store-contract.js';

const newRoot = () => mkdtempSync(path.join(tmpdir(), 'maproom-blobs-'));

blobStoreContract('FileBlobStore', async () => {
  const root = newRoot();
  return { store: new FileBlobStore(root), dispose: async () => rmSync(root, { recursive: true, force: true }) };
});

test('FileBlobStore: a failed put leaves no temporary file, and a stored file is the file under the root', async () => {
  const root = newRoot();
  try {
    const store = new FileBlobStore(root);
    const broken = new Readable({
      read() {
        this.destroy(new Error('broken'));
      },
    });
    await assert.rejects(store.put('rooms/x/broken.bin', broken));
    assert.deepEqual(readdirSync(path.join(root, '.tmp')), []);
    assert.equal(existsSync(path.join(root, 'rooms/x/broken.bin')), false);
    await store.put('rooms/x/kept.bin', Buffer.from('kept'));
    assert.equal((await store.localFile('rooms/x/kept.bin')).path, path.join(root, 'rooms/x/kept.bin'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
