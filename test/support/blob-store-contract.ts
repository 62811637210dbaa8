import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import type { BlobStore } from '../../src/infra/blob-store.js';

/** A store to test and how to remove it afterwards. */
export interface StoreUnderTest {
  store: BlobStore;
  dispose(): Promise<void>;
}

/**
 * What every BlobStore must do, whatever holds the bytes (disk now, object storage later):
 * run it with a factory of fresh, empty stores.
 */
export function blobStoreContract(name: string, make: () => Promise<StoreUnderTest>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let under: StoreUnderTest;
    let store: BlobStore;
    let scratch: string;
    before(async () => {
      under = await make();
      store = under.store;
      scratch = mkdtempSync(path.join(tmpdir(), 'maproom-blob-contract-'));
    });
    after(async () => {
      await under?.dispose();
      rmSync(scratch, { recursive: true, force: true });
    });

    /** 0, 1, ... 255, 0, 1, ...: every byte tells its own position. */
    const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => i % 256));
    const range = (start: number, end: number) => ({ start, end });

    test('put stores a buffer or a stream and answers the size; get and read give the bytes back', async () => {
      assert.equal(await store.put('contract/a/buffer.bin', bytes(1000)), 1000);
      assert.equal(await store.put('contract/a/stream.bin', Readable.from([bytes(10), bytes(5)])), 15);
      const got = await store.get('contract/a/buffer.bin');
      assert.ok(got);
      assert.equal(got.bytes, 1000);
      assert.deepEqual(await buffer(got.stream), bytes(1000));
      assert.deepEqual(await store.read('contract/a/stream.bin'), Buffer.concat([bytes(10), bytes(5)]));
      assert.equal(await store.size('contract/a/buffer.bin'), 1000);
    });

    test('a second put replaces the file', async () => {
      await store.put('contract/replaced.bin', Buffer.from('first version'));
      await store.put('contract/replaced.bin', Buffer.from('second'));
      assert.equal((await store.read('contract/replaced.bin'))?.toString(), 'second');
      assert.equal(await store.size('contract/replaced.bin'), 6);
    });

    test('putFile moves a local file in: the bytes are stored and the local file is gone', async () => {
      const file = path.join(scratch, 'upload.bin');
      writeFileSync(file, bytes(300));
      assert.equal(await store.putFile('contract/moved.bin', file), 300);
      assert.equal(existsSync(file), false);
      assert.deepEqual(await store.read('contract/moved.bin'), bytes(300));
    });

    test('read gives exactly the range asked, both ends included, the last byte too', async () => {
      await store.put('contract/ranges.bin', bytes(1000));
      assert.deepEqual(await store.read('contract/ranges.bin', range(0, 0)), bytes(1));
      assert.deepEqual(await store.read('contract/ranges.bin', range(256, 259)), Buffer.from([0, 1, 2, 3]));
      assert.deepEqual(await store.read('contract/ranges.bin', range(999, 999)), Buffer.from([999 % 256]));
      assert.deepEqual(await store.read('contract/ranges.bin', range(0, 999)), bytes(1000));
    });

    test('a range past the end gives the bytes up to the end, none when it starts at or beyond the end', async () => {
      await store.put('contract/short.bin', bytes(10));
      assert.deepEqual(await store.read('contract/short.bin', range(8, 1000)), Buffer.from([8, 9]));
      assert.equal((await store.read('contract/short.bin', range(10, 20)))?.length, 0);
      assert.equal((await store.read('contract/short.bin', range(500, 600)))?.length, 0);
    });

    test('get streams a range, and says the size of the whole file', async () => {
      await store.put('contract/streamed.bin', bytes(600));
      const got = await store.get('contract/streamed.bin', range(510, 513));
      assert.ok(got);
      assert.equal(got.bytes, 600);
      assert.deepEqual(await buffer(got.stream), Buffer.from([254, 255, 0, 1]));
    });

    test('a range that is not one is refused', async () => {
      await store.put('contract/refused.bin', bytes(10));
      await assert.rejects(store.read('contract/refused.bin', range(-1, 3)), RangeError);
      await assert.rejects(store.read('contract/refused.bin', range(5, 2)), RangeError);
      await assert.rejects(store.read('contract/refused.bin', range(0.5, 3)), RangeError);
    });

    test('a missing key is null for get, read and size, and refused by localFile', async () => {
      assert.equal(await store.get('contract/none.bin'), null);
      assert.equal(await store.read('contract/none.bin'), null);
      assert.equal(await store.read('contract/none.bin', range(0, 10)), null);
      assert.equal(await store.size('contract/none.bin'), null);
      await assert.rejects(store.localFile('contract/none.bin'));
    });

    test('unsafe keys are refused', async () => {
      for (const key of ['../outside.bin', '/absolute.bin', 'a/../b.bin', 'a//b.bin', 'a\\b.bin', ''])
        await assert.rejects(store.put(key, bytes(1)), `key ${JSON.stringify(key)}`);
    });

    test('a put that fails leaves nothing, and readers never see a file half-written', async () => {
      const failing = new Readable({ read() {} });
      failing.push(bytes(100));
      const put = store.put('contract/atomic.bin', failing);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(await store.read('contract/atomic.bin'), null, 'nothing while it is being written');
      failing.destroy(new Error('the client went away'));
      await assert.rejects(put, /the client went away/);
      assert.equal(await store.get('contract/atomic.bin'), null);
      assert.equal(await store.size('contract/atomic.bin'), null);

      await store.put('contract/kept.bin', Buffer.from('the old bytes'));
      const broken = new Readable({
        read() {
          this.destroy(new Error('broken'));
        },
      });
      await assert.rejects(store.put('contract/kept.bin', broken));
      assert.equal((await store.read('contract/kept.bin'))?.toString(), 'the old bytes', 'the old file stays whole');
      await assert.rejects(store.putFile('contract/from-nothing.bin', path.join(scratch, 'no-such-file')));
      assert.equal(await store.size('contract/from-nothing.bin'), null);
    });

    test('delete removes one file; deleting a missing one is no error', async () => {
      await store.put('contract/deleted.bin', bytes(5));
      await store.put('contract/deleted-not.bin', bytes(5));
      await store.delete('contract/deleted.bin');
      await store.delete('contract/deleted.bin');
      assert.equal(await store.read('contract/deleted.bin'), null);
      assert.equal(await store.size('contract/deleted-not.bin'), 5);
    });

    test('deletePrefix removes a folder with everything under it, and nothing of its neighbours', async () => {
      await store.put('contract/room1/a.bin', bytes(1));
      await store.put('contract/room1/deep/b.bin', bytes(1));
      await store.put('contract/room10/c.bin', bytes(1));
      await store.put('contract/room1.bin', bytes(1));
      await store.deletePrefix('contract/room1/');
      assert.equal(await store.size('contract/room1/a.bin'), null);
      assert.equal(await store.size('contract/room1/deep/b.bin'), null);
      assert.equal(await store.size('contract/room10/c.bin'), 1);
      assert.equal(await store.size('contract/room1.bin'), 1);
      await store.deletePrefix('contract/no-such-folder/');
    });

    test('localFile gives a path holding the bytes; after release the stored file is still there', async () => {
      await store.put('contract/local.tif', bytes(2048));
      const local = await store.localFile('contract/local.tif');
      assert.deepEqual(readFileSync(local.path), bytes(2048));
      await local.release();
      assert.deepEqual(await store.read('contract/local.tif', range(2040, 2047)), bytes(2048).subarray(2040));
    });

    test('concat stores the parts in order as one file, and the parts stay', async () => {
      await store.put('contract/parts/0', bytes(300));
      await store.put('contract/parts/1', Buffer.from('middle'));
      await store.put('contract/parts/2', Buffer.alloc(0));
      await store.put('contract/parts/3', bytes(7));
      const parts = ['contract/parts/0', 'contract/parts/1', 'contract/parts/2', 'contract/parts/3'];
      assert.equal(await store.concat('contract/joined.bin', parts), 313);
      assert.deepEqual(
        await store.read('contract/joined.bin'),
        Buffer.concat([bytes(300), Buffer.from('middle'), bytes(7)]),
      );
      assert.equal(await store.size('contract/parts/1'), 6);
      assert.equal(await store.concat('contract/one.bin', ['contract/parts/1']), 6);
      assert.equal((await store.read('contract/one.bin'))?.toString(), 'middle');
    });

    test('concat with a missing part is refused and writes nothing', async () => {
      await store.put('contract/parts/present', bytes(10));
      await assert.rejects(
        store.concat('contract/not-joined.bin', ['contract/parts/present', 'contract/parts/absent']),
      );
      assert.equal(await store.size('contract/not-joined.bin'), null);
      await assert.rejects(store.concat('../outside.bin', ['contract/parts/present']));
    });

    test('keys lists every stored key once, and nothing being written', async () => {
      await store.put('contract/keys/a.bin', bytes(3));
      await store.put('contract/keys/deeper/b.bin', bytes(4));
      const arriving = new Readable({ read() {} });
      arriving.push(bytes(100));
      const put = store.put('contract/keys/arriving.bin', arriving);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const listed: string[] = [];
      for await (const key of store.keys()) if (key.startsWith('contract/keys/')) listed.push(key);
      arriving.destroy(new Error('the client went away'));
      await assert.rejects(put, /the client went away/);
      assert.deepEqual(listed.sort(), ['contract/keys/a.bin', 'contract/keys/deeper/b.bin']);
    });

    test('clean keeps what is stored', async () => {
      await store.put('contract/clean.bin', bytes(7));
      await store.clean();
      assert.equal(await store.size('contract/clean.bin'), 7);
    });
  });
}
