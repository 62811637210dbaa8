/**
 * The BlobStore contract (test/support/blob-store-contract.ts) held against S3BlobStore on a
 * real S3 server (OpenStack Swift, test/support/swift.ts), each run in a fresh bucket; then
 * what only the S3 store does: chunks assembled by a multipart upload, parts of 5 MiB and
 * more copied inside the store, smaller ones sent; `localFile` downloads and `release` removes
 * the copy; `clean` aborts only stale multipart uploads.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CreateMultipartUploadCommand, ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { S3BlobStore } from '../../src/infra/s3-blob-store.js';
import { S3_MIN_PART_BYTES, S3MultipartConcat } from '../../src/infra/s3-concat.js';
import { blobStoreContract } from '../support/blob-store-contract.js';
import { overriding } from '../support/blobs.js';
import { type S3TestServer, s3TestServer } from '../support/swift.js';

let server: S3TestServer;
const tmp = mkdtempSync(path.join(tmpdir(), 'maproom-s3-store-'));

before(async () => {
  server = await s3TestServer();
});
after(async () => {
  await server?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

async function newStore() {
  const bucket = await server.newBucket();
  const store = new S3BlobStore(server.client, {
    bucket,
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    tmpDir: tmp,
  });
  return { store, bucket };
}

blobStoreContract('S3BlobStore on Swift', async () => {
  const { store } = await newStore();
  return { store, dispose: async () => undefined };
});

/** `n` bytes, each telling its position (modulo a prime, so that parts do not line up by chance). */
const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i + seed) % 251));

test('concat assembles large and small parts in any order into one object, byte for byte', async () => {
  const { store } = await newStore();
  const MiB = 1024 ** 2;
  // Large (copied), small (sent), small then large (the large one tops up the small), large last.
  const sizes = [S3_MIN_PART_BYTES + 3, 100, 2 * MiB, S3_MIN_PART_BYTES + MiB, 7, S3_MIN_PART_BYTES];
  const parts = sizes.map((size, i) => ({ key: `chunks/r/u/${i}`, data: bytes(size, i) }));
  for (const part of parts) await store.put(part.key, part.data);
  const keys = parts.map((part) => part.key);
  const total = sizes.reduce((n, size) => n + size, 0);
  assert.equal(await store.concat('uploads/r/joined.bin', keys), total);
  const joined = await store.read('uploads/r/joined.bin');
  assert.ok(joined);
  assert.equal(joined.length, total);
  assert.ok(joined.equals(Buffer.concat(parts.map((part) => part.data))), 'the bytes in order');
  assert.equal(await store.size(keys[0]!), sizes[0], 'the parts stay');

  assert.equal(await store.concat('uploads/r/smalls.bin', [keys[1]!, keys[4]!]), 107);
  assert.deepEqual(await store.read('uploads/r/smalls.bin'), Buffer.concat([parts[1]!.data, parts[4]!.data]));
});

test('a concat that fails half-way leaves no object and no multipart upload behind', async () => {
  const { store, bucket } = await newStore();
  await store.put('chunks/r/u/big', bytes(S3_MIN_PART_BYTES + 1, 0));
  await store.put('chunks/r/u/small', bytes(10, 0));
  // The large part is copied, then reading the small one fails (a store that went away).
  const failing = overriding(store, {
    read: async () => {
      throw new Error('the store went away');
    },
  });
  const concat = new S3MultipartConcat(server.client, bucket, failing);
  await assert.rejects(concat.run('uploads/r/broken.bin', ['chunks/r/u/big', 'chunks/r/u/small']), /went away/);
  assert.equal(await store.size('uploads/r/broken.bin'), null);
  const open = await server.client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
  assert.deepEqual(open.Uploads ?? [], [], 'the multipart upload was aborted');
});

test('localFile downloads the object to the tmp folder; release deletes the copy, not the object', async () => {
  const { store } = await newStore();
  await store.put('layers/r/l/source.tif', bytes(70_000, 3));
  const local = await store.localFile('layers/r/l/source.tif');
  assert.equal(path.dirname(local.path), tmp);
  assert.ok(local.path.endsWith('.tif'), 'GDAL sees the extension');
  assert.ok(readFileSync(local.path).equals(bytes(70_000, 3)));
  await local.release();
  assert.equal(existsSync(local.path), false);
  assert.equal(await store.size('layers/r/l/source.tif'), 70_000);
});

test('clean leaves a multipart upload under way (younger than a day) alone', async () => {
  const { store, bucket } = await newStore();
  await server.client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'uploads/r/under-way' }));
  await store.clean();
  const open = await server.client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
  assert.deepEqual(
    open.Uploads?.map((upload) => upload.Key),
    ['uploads/r/under-way'],
  );
});
