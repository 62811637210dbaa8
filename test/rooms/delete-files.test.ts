/**
 * Deleting a room removes its stored files, those stored_files records (a marker photo and
 * its thumbnail) and those it does not (a chunk of an upload not yet processed), and no file
 * of another room. The files are followed through the blob store, whatever their keys.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import type { BlobStore } from '../../src/infra/blob-store.js';
import { overriding } from '../support/blobs.js';
import { assertOk, call, createRoom, postMultipart, scaffold, type TestApp, type Users } from '../helpers.js';

let t: TestApp;
let users: Users;
let inner: BlobStore;
/** Every key written, in order. */
const written: string[] = [];

before(async () => {
  ({ t, users } = await scaffold({
    rooms: [],
    build: {
      wrapBlobStore: (store) => {
        inner = store;
        const record = (key: string) => {
          written.push(key);
          return key;
        };
        return overriding(store, {
          put: (key, data) => store.put(record(key), data),
          putFile: (key, file) => store.putFile(record(key), file),
        });
      },
    },
  }));
});
after(() => t?.close());

/** A marker photo and one chunk of an unfinished upload in the room; returns the keys written. */
async function filesIn(roomId: string): Promise<string[]> {
  const from = written.length;
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  const auth = users.owner.token;
  assertOk(
    await postMultipart(
      t.app,
      `/api/rooms/${roomId}/markers/upload-image`,
      { image: { data: png, filename: 'a.png' } },
      auth,
    ),
  );
  const chunk = {
    roomName: roomId,
    uploadId: `upload-${roomId}`,
    chunkIndex: '0',
    totalChunks: '2',
    fileName: 'big.geojson',
    chunk: { data: Buffer.from('{"type":"FeatureCollection",'), filename: 'blob' },
  };
  assertOk(await postMultipart(t.app, '/api/layers/upload-chunk', chunk, auth));
  return written.slice(from);
}

test("deleting a room removes its recorded and unrecorded files, and no other room's", async () => {
  const doomed = await createRoom(t.app, users.owner);
  const kept = await createRoom(t.app, users.owner);
  const doomedKeys = await filesIn(doomed);
  const keptKeys = await filesIn(kept);
  assert.equal(doomedKeys.length, 3, `photo, thumbnail and chunk: ${doomedKeys.join(', ')}`);
  for (const key of doomedKeys) assert.notEqual(await inner.size(key), null, key);

  assertOk(await call(t.app, 'DELETE', `/api/rooms/${doomed}`, { auth: users.owner.token }));
  for (const key of doomedKeys) assert.equal(await inner.size(key), null, `${key} is gone`);
  for (const key of keptKeys) assert.notEqual(await inner.size(key), null, `${key} of the other room stays`);
});
