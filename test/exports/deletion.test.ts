/**
 * An export while photos go: markers with photos deleted while the room is exported (the
 * defect the route fuzzer found: the export failed when a photo it had listed was gone
 * before it read the file). The export completes, and the file is consistent: each photo it
 * holds is whole, and a marker whose photo it does not hold comes back without one.
 * Decision: docs/decisions.md ("An export while content changes").
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import sharp from 'sharp';
import { assertOk, call, createRoom, postMultipart, scaffold, type TestApp, type Users } from '../helpers.js';
import { importFile, ogrTables, scratch } from '../support/exports.js';
import { makePhotos } from '../support/markers.js';

let t: TestApp;
let users: Users;
let files: ReturnType<typeof scratch>;
let photo: Buffer;

before(async () => {
  files = scratch();
  ({ t, users } = await scaffold({ rooms: [] }));
  photo = (await makePhotos()).photoA;
});
after(async () => {
  await t?.close();
  files?.remove();
});

const MARKERS = 12;

/** Markers each with a photo of its own; their ids. */
async function markersWithPhotos(roomId: string): Promise<string[]> {
  const auth = users.owner.token;
  const ids: string[] = [];
  for (let i = 0; i < MARKERS; i++) {
    const upload = assertOk(
      await postMultipart(
        t.app,
        `/api/rooms/${roomId}/markers/upload-image`,
        { image: { data: photo, filename: `p${i}.jpg`, type: 'image/jpeg' } },
        auth,
      ),
    );
    const body = {
      latitude: i,
      longitude: i,
      title: `M${i}`,
      imageKey: upload.imageKey,
      thumbnailKey: upload.thumbnailKey,
    };
    ids.push(assertOk(await call(t.app, 'POST', `/api/rooms/${roomId}/markers`, { auth, body }), 201).marker.id);
  }
  return ids;
}

/** Deletes the markers one after the other, each a turn of the event loop apart, while `work` runs. */
async function deletingDuring<T>(roomId: string, ids: string[], work: Promise<T>): Promise<T> {
  const deletions = (async () => {
    for (const id of ids) {
      assertOk(await call(t.app, 'DELETE', `/api/rooms/${roomId}/markers/${id}`, { auth: users.owner.token }));
      await sleep(1);
    }
  })();
  const [result] = await Promise.all([work, deletions]);
  return result;
}

/** The file imported into a fresh room: every marker's photo there is readable, or the marker has none. */
async function assertConsistent(gpkg: Buffer) {
  const file = files.file('export.gpkg');
  writeFileSync(file, gpkg);
  const tables = ogrTables(file);
  assert.ok(tables.has('markers') && tables.has('marker_images'), [...tables.keys()].join());
  // In the file itself, a marker names only photos the file holds, and keeps no provenance of one it lost.
  const gpkgDb = new SQLite(file, { readonly: true });
  try {
    for (const column of ['image_key', 'thumbnail_key']) {
      const dangling = gpkgDb
        .prepare(
          `SELECT count(*) AS n FROM markers m WHERE m.${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM marker_images i WHERE i.key = m.${column})`,
        )
        .get() as { n: number };
      assert.equal(dangling.n, 0, `markers naming a ${column} the file does not hold`);
    }
    const lost = gpkgDb
      .prepare('SELECT count(*) AS n FROM markers WHERE image_key IS NULL AND image_meta IS NOT NULL')
      .get() as { n: number };
    assert.equal(lost.n, 0);
  } finally {
    gpkgDb.close();
  }
  const target = await createRoom(t.app, users.owner);
  const res = await importFile(t.app, target, users.owner.token, gpkg);
  assert.equal(res.statusCode, 200, res.body);
  const { markers } = assertOk(await call(t.app, 'GET', `/api/rooms/${target}/markers`, { auth: users.owner.token }));
  assert.ok(markers.length <= MARKERS);
  for (const marker of markers) {
    assert.equal(marker.imageKey === null, marker.thumbnailKey === null, JSON.stringify(marker));
    if (marker.imageKey === null) {
      assert.equal(marker.imageMeta, null, 'a marker without its photo keeps no provenance of it');
      continue;
    }
    for (const key of [marker.imageKey, marker.thumbnailKey]) {
      const image = await call(t.app, 'GET', `/api/rooms/${target}/markers/image?key=${encodeURIComponent(key)}`, {
        auth: users.owner.token,
      });
      assert.equal(image.statusCode, 200, `${key}: ${image.body.slice(0, 200)}`);
      const meta = await sharp(image.rawPayload).metadata();
      assert.equal(meta.format, 'jpeg');
    }
  }
  return markers.length;
}

test('markers with photos deleted during an export: the export completes and its file is consistent', async () => {
  for (let round = 0; round < 3; round++) {
    const roomId = await createRoom(t.app, users.owner);
    const ids = await markersWithPhotos(roomId);
    const res = await deletingDuring(
      roomId,
      ids,
      call(t.app, 'POST', `/api/rooms/${roomId}/export`, { auth: users.owner.token, body: {} }),
    );
    assert.equal(res.statusCode, 200, `round ${round}: ${res.body.slice(0, 300)}`);
    await assertConsistent(res.rawPayload);
  }
});

test('an export job during deletions of markers with photos ends complete, and its artifact is consistent', async () => {
  for (let round = 0; round < 3; round++) {
    const roomId = await createRoom(t.app, users.owner);
    const ids = await markersWithPhotos(roomId);
    const auth = users.owner.token;
    const job = await deletingDuring(
      roomId,
      ids,
      (async () => {
        const { jobId } = assertOk(
          await call(t.app, 'POST', `/api/rooms/${roomId}/export-jobs`, { auth, body: {} }),
          202,
        );
        for (let i = 0; i < 600; i++) {
          const state = assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}/export-jobs/${jobId}`, { auth }));
          if (state.status === 'complete' || state.status === 'error') return { jobId, ...state };
          await sleep(20);
        }
        throw new Error('the export job did not finish');
      })(),
    );
    assert.equal(job.status, 'complete', `round ${round}: ${JSON.stringify(job)}`);
    const artifact = await call(t.app, 'GET', `/api/rooms/${roomId}/export-jobs/${job.jobId}/artifact`, { auth });
    assert.equal(artifact.statusCode, 200);
    await assertConsistent(artifact.rawPayload);
  }
});
