/**
 * The object store with its calls timed (src/infra/timed-blob-store.ts), as the service wraps
 * it when there are metrics: it still keeps the whole BlobStore contract, and each call it
 * times is heard once, failed ones too.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { FileBlobStore } from '../../src/infra/blob-store.js';
import { type BlobOperation, timedBlobStore } from '../../src/infra/timed-blob-store.js';
import { blobStoreContract } from '../support/blob-store-contract.js';

const newRoot = () => mkdtempSync(path.join(tmpdir(), 'maproom-timed-blobs-'));

/** A timer that keeps each call it hears. */
function recordingTimer() {
  const heard: { operation: BlobOperation; seconds: number }[] = [];
  return {
    heard,
    timer: { objectStoreCalled: (operation: BlobOperation, seconds: number) => heard.push({ operation, seconds }) },
  };
}

blobStoreContract('FileBlobStore, timed', async () => {
  const root = newRoot();
  return {
    store: timedBlobStore(new FileBlobStore(root), recordingTimer().timer),
    dispose: async () => rmSync(root, { recursive: true, force: true }),
  };
});

test('each call is heard once with its operation, a failed one too; what the store lacks stays absent', async () => {
  const root = newRoot();
  try {
    const { heard, timer } = recordingTimer();
    const store = timedBlobStore(new FileBlobStore(root), timer);
    await store.put('timed/a.bin', Buffer.from('abc'));
    assert.equal((await store.read('timed/a.bin'))?.toString(), 'abc');
    assert.equal(await store.read('timed/missing.bin'), null);
    await assert.rejects(store.localFile('timed/missing.bin'));
    const listed: string[] = [];
    for await (const key of store.keys()) listed.push(key);
    assert.deepEqual(listed, ['timed/a.bin']);
    assert.deepEqual(
      heard.map((call) => call.operation),
      ['put', 'read', 'read', 'localFile'],
    );
    assert.ok(heard.every((call) => call.seconds >= 0));
    assert.equal(store.gdalSource, undefined, 'a store on disk has no GDAL source');
    assert.equal('gdalSource' in store, false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
