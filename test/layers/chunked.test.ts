/**
 * Chunked upload (`POST /api/layers/upload-chunk`, `POST /api/layers/process-chunked`): a
 * GeoJSON of about 53 MB written by GDAL, sent in three chunks and assembled into a layer by a
 * job; a missing chunk named in a 400; a chunk sent again replacing the first; tokens of
 * another room refused; unfinished uploads removed after 24 hours (at start).
 * Contract: docs/http-interface.md ("Layers and uploads", Limits), docs/contract-decisions.md ("Chunked upload").
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  type FormPart,
  issueToken,
  labelled,
  postMultipart,
  scaffold,
  type TestApp,
  TOKEN_ERRORS,
  type Users,
} from '../helpers.js';
import { completedJob, features, listLayers, storedState, TWO_SQUARES } from '../support/layers.js';
import { makeVectorFixtures } from '../vector-fixtures.js';

let t: TestApp;
let users: Users;
let room: string;
let otherRoom: string;
let uploader: { token: string; id: string };
let fixtures: ReturnType<typeof makeVectorFixtures>;

before(async () => {
  fixtures = makeVectorFixtures('over50mb');
  ({ t, users, room, otherRoom } = await scaffold({ rooms: ['room', 'otherRoom'] }));
  uploader = await issueToken(t.app, users.owner, room, ['upload']);
});
after(async () => {
  await t?.close();
  fixtures?.remove();
});

let uploadCounter = 0;
const newUploadId = () => `upload-${Date.now().toString(36)}-${uploadCounter++}`;

interface ChunkRequest {
  uploadId: string;
  chunkIndex: number;
  totalChunks: number;
  fileName: string;
  data: Buffer | string;
  roomName?: string;
}

/** `POST /api/layers/upload-chunk` with the decided fields (as the upload token unless told; null: anonymous). */
function sendChunk(c: ChunkRequest, auth: string | null = uploader.token) {
  const form: Record<string, FormPart> = {
    roomName: c.roomName ?? room,
    uploadId: c.uploadId,
    chunkIndex: String(c.chunkIndex),
    totalChunks: String(c.totalChunks),
    fileName: c.fileName,
    chunk: { data: c.data, filename: 'blob' },
  };
  return postMultipart(t.app, '/api/layers/upload-chunk', form, auth ?? undefined);
}

/** `POST /api/layers/process-chunked`. */
const processChunked = (body: Record<string, unknown>, auth = uploader.token) =>
  call(t.app, 'POST', '/api/layers/process-chunked', { auth, body: { roomName: room, ...body } });

/** `bytes` cut into `count` pieces of nearly equal size. */
function split(bytes: Buffer, count: number): Buffer[] {
  const size = Math.ceil(bytes.length / count);
  return Array.from({ length: count }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
}

const SMALL_FILE = Buffer.from(JSON.stringify(TWO_SQUARES));

describe('a file over 50 MB, sent in chunks', () => {
  test('three chunks are assembled and processed as a job into a layer; the chunks are gone afterwards', async () => {
    const path = fixtures.file('over_50mb.geojson');
    assert.ok(statSync(path).size > 50 * 1024 * 1024, 'the file is over the single-request cap');
    const parts = split(readFileSync(path), 3);
    const uploadId = newUploadId();
    for (const [chunkIndex, data] of parts.entries()) {
      const body = assertOk(
        await sendChunk({ uploadId, chunkIndex, totalChunks: 3, fileName: 'over_50mb.geojson', data }),
      );
      assert.deepEqual(body, { uploadId, chunkIndex, received: chunkIndex + 1 });
    }
    const held = await storedState(t, room);
    assert.equal(held.chunks, 3);
    assert.equal(held.quotaBytes, statSync(path).size, 'chunks count against the quota while they wait');

    const res = await processChunked({
      uploadId,
      fileName: 'over_50mb.geojson',
      layerName: 'Padded',
      description: 'In pieces',
      style: { color: 'aa0000' },
    });
    const { jobId } = assertOk(res, 202);
    assert.match(jobId, /^job-/);
    const job = await completedJob(t.app, jobId, users.owner.token);
    const layer = (await listLayers(t.app, room, users.owner.token)).find((l) => l.id === job.layerId);
    assert.ok(layer, 'the layer is listed');
    assert.equal(layer.name, 'Padded');
    assert.equal(layer.description, 'In pieces');
    assert.equal(layer.style.color, 'aa0000');
    assert.equal(layer.featureCount, 510);
    assert.equal(layer.sourceFormat, 'geojson');
    assert.equal(layer.createdBy, uploader.id);
    const served = await features(t.app, layer.id, users.owner.token, 'minLon=7&minLat=46&maxLon=7.05&maxLat=46.005');
    assert.ok(served.features.length > 0);
    assert.equal((served.features[0]!.properties.notes as string).length, 105_000, 'the text survived the assembly');

    const after = await storedState(t, room);
    assert.equal(after.chunks, 0, 'no chunk row is left');
    assert.deepEqual(
      after.files.filter((f) => f.startsWith('chunks/') || f.startsWith('uploads/')),
      [],
      'no chunk or upload file is left',
    );
    assertError(await processChunked({ uploadId, fileName: 'over_50mb.geojson' }), 404, 'not_found');
  });
});

describe('missing and repeated chunks', () => {
  test('a missing chunk is 400 naming it; once sent, the upload is processed', async () => {
    const uploadId = newUploadId();
    const parts = split(SMALL_FILE, 3);
    assertOk(
      await sendChunk({ uploadId, chunkIndex: 0, totalChunks: 3, fileName: 'squares.geojson', data: parts[0]! }),
    );
    assertOk(
      await sendChunk({ uploadId, chunkIndex: 2, totalChunks: 3, fileName: 'squares.geojson', data: parts[2]! }),
    );
    const jobsBefore = (await storedState(t, room)).jobs;
    const missing = assertFieldError(await processChunked({ uploadId, fileName: 'squares.geojson' }), 'chunkIndex');
    assert.match(missing.message, /Chunk 1 of 3 is missing/);
    assert.equal((await storedState(t, room)).jobs, jobsBefore, 'no job is queued');
    assert.deepEqual(
      assertOk(
        await sendChunk({ uploadId, chunkIndex: 1, totalChunks: 3, fileName: 'squares.geojson', data: parts[1]! }),
      ),
      { uploadId, chunkIndex: 1, received: 3 },
    );
    const job = await completedJob(
      t.app,
      assertOk(await processChunked({ uploadId, fileName: 'squares.geojson' }), 202).jobId,
      users.owner.token,
    );
    assert.equal((await features(t.app, job.layerId, users.owner.token)).features.length, 2);
  });

  test('several missing chunks: the first is named, and how many more', async () => {
    const uploadId = newUploadId();
    assertOk(await sendChunk({ uploadId, chunkIndex: 3, totalChunks: 5, fileName: 'squares.geojson', data: 'x' }));
    const body = assertFieldError(await processChunked({ uploadId, fileName: 'squares.geojson' }), 'chunkIndex');
    assert.match(body.message, /Chunk 0 of 5 is missing \(and 3 more\)/);
    assert.match(JSON.stringify(body.details), /0, 1, 2, 4/);
  });

  test('a chunk sent again replaces the first one (and its bytes in the quota)', async () => {
    const uploadId = newUploadId();
    const parts = split(SMALL_FILE, 2);
    const before = (await storedState(t, room)).quotaBytes;
    assertOk(
      await sendChunk({
        uploadId,
        chunkIndex: 0,
        totalChunks: 2,
        fileName: 'squares.geojson',
        data: 'garbage that would never parse',
      }),
    );
    assert.deepEqual(
      assertOk(
        await sendChunk({ uploadId, chunkIndex: 0, totalChunks: 2, fileName: 'squares.geojson', data: parts[0]! }),
      ),
      { uploadId, chunkIndex: 0, received: 1 },
    );
    assert.deepEqual(
      assertOk(
        await sendChunk({ uploadId, chunkIndex: 1, totalChunks: 2, fileName: 'squares.geojson', data: parts[1]! }),
      ),
      { uploadId, chunkIndex: 1, received: 2 },
    );
    const state = await storedState(t, room);
    assert.equal(state.quotaBytes - before, SMALL_FILE.length, 'only the chunks held count');
    const job = await completedJob(
      t.app,
      assertOk(await processChunked({ uploadId, fileName: 'squares.geojson' }), 202).jobId,
      users.owner.token,
    );
    assert.deepEqual(
      (await features(t.app, job.layerId, users.owner.token)).features.map((f) => f.properties.name).sort(),
      ['east', 'west'],
    );
  });
});

describe('fields and limits', () => {
  test('bad fields are 400 naming them; an upload must keep its totalChunks and fileName', async () => {
    const uploadId = newUploadId();
    const good = { uploadId, chunkIndex: 0, totalChunks: 2, fileName: 'squares.geojson', data: 'x' };
    const cases: [string, ChunkRequest, string][] = [
      ['uploadId too short', { ...good, uploadId: 'short' }, 'uploadId'],
      ['uploadId with a slash', { ...good, uploadId: 'abc/../defgh' }, 'uploadId'],
      ['chunkIndex past the last', { ...good, chunkIndex: 2 }, 'chunkIndex'],
      ['chunkIndex negative', { ...good, chunkIndex: -1 }, 'chunkIndex'],
      ['totalChunks 0', { ...good, totalChunks: 0 }, 'totalChunks'],
      ['fileName empty', { ...good, fileName: '' }, 'fileName'],
      ['roomName not a room id', { ...good, roomName: 'nope' }, 'roomName'],
    ];
    for (const [name, request, field] of cases) {
      const res = await sendChunk(request);
      labelled(name, () => assertFieldError(res, field));
    }
    assertOk(await sendChunk(good));
    assertError(await sendChunk({ ...good, chunkIndex: 1, totalChunks: 3 }), 400, 'validation_error');
    assertError(await sendChunk({ ...good, chunkIndex: 1, fileName: 'other.geojson' }), 400, 'validation_error');
    assertFieldError(
      await postMultipart(
        t.app,
        '/api/layers/upload-chunk',
        { roomName: room, uploadId, chunkIndex: '1', totalChunks: '2', fileName: 'a.geojson' },
        uploader.token,
      ),
      'chunk',
    );
    assertFieldError(await processChunked({ uploadId: 'bad id!', fileName: 'a.geojson' }), 'body.uploadId');
    assertFieldError(await processChunked({ uploadId }), 'body.fileName');
    assertError(await processChunked({ uploadId: newUploadId(), fileName: 'a.geojson' }), 404, 'not_found');
  });

  test('a chunk over 50 MB is 413 file_too_large and is not kept', async () => {
    const before = await storedState(t, room);
    const res = await sendChunk({
      uploadId: newUploadId(),
      chunkIndex: 0,
      totalChunks: 2,
      fileName: 'big.geojson',
      data: Buffer.alloc(50 * 1024 * 1024 + 1, 0x20),
    });
    assertError(res, 413, 'file_too_large');
    assert.deepEqual(await storedState(t, room), before);
  });
});

describe('who may send chunks', () => {
  test("a token of another room is 403 'not scoped to this room'; a token without upload is 403; nothing is kept", async () => {
    const foreign = await issueToken(t.app, users.owner, otherRoom, ['read', 'write', 'upload']);
    const reader = await issueToken(t.app, users.owner, room, ['read', 'write']);
    const before = await storedState(t, room);
    const chunk = {
      uploadId: newUploadId(),
      chunkIndex: 0,
      totalChunks: 1,
      fileName: 'squares.geojson',
      data: SMALL_FILE,
    };
    assertError(await sendChunk(chunk, foreign.token), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    assertError(
      await processChunked({ uploadId: chunk.uploadId, fileName: 'squares.geojson' }, foreign.token),
      403,
      'forbidden',
      TOKEN_ERRORS.wrongRoom,
    );
    assertError(await sendChunk(chunk, reader.token), 403, 'forbidden', TOKEN_ERRORS.lacksUpload);
    assertError(
      await processChunked({ uploadId: chunk.uploadId, fileName: 'squares.geojson' }, reader.token),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksUpload,
    );
    assertError(await sendChunk(chunk, users.viewer.token), 403, 'forbidden');
    assertError(await sendChunk(chunk, users.stranger.token), 403, 'forbidden');
    assertError(await sendChunk(chunk, null), 401, 'unauthorized');
    assert.deepEqual(await storedState(t, room), before);
    // Chunks of one room cannot be processed through another: the upload id is the room's own.
    assertOk(await sendChunk(chunk));
    const theirs = await issueToken(t.app, users.owner, otherRoom, ['upload']);
    assertError(
      await call(t.app, 'POST', '/api/layers/process-chunked', {
        auth: theirs.token,
        body: { roomName: otherRoom, uploadId: chunk.uploadId, fileName: 'squares.geojson' },
      }),
      404,
      'not_found',
    );
    const { jobId } = assertOk(
      await processChunked({ uploadId: chunk.uploadId, fileName: 'squares.geojson' }, users.editor.token),
      202,
    );
    await completedJob(t.app, jobId, users.editor.token);
  });
});

describe('unfinished uploads', () => {
  test('chunks older than 24 hours are removed at start, with their files; younger ones stay', async () => {
    const old = newUploadId();
    const young = newUploadId();
    assertOk(
      await sendChunk({ uploadId: old, chunkIndex: 0, totalChunks: 2, fileName: 'squares.geojson', data: SMALL_FILE }),
    );
    assertOk(
      await sendChunk({
        uploadId: young,
        chunkIndex: 0,
        totalChunks: 2,
        fileName: 'squares.geojson',
        data: SMALL_FILE,
      }),
    );
    const keyOf = async (uploadId: string) =>
      (
        await t.database.db
          .selectFrom('upload_chunks')
          .select('file_key')
          .where('upload_id', '=', uploadId)
          .executeTakeFirstOrThrow()
      ).file_key;
    const [oldKey, youngKey] = [await keyOf(old), await keyOf(young)];
    const before = await storedState(t, room);
    assert.ok(before.files.includes(oldKey) && before.files.includes(youngKey));
    await t.database.db
      .updateTable('upload_chunks')
      .set({ created_at: Date.now() - 25 * 3600 * 1000 })
      .where('upload_id', '=', old)
      .execute();
    await t.restart();

    const after = await storedState(t, room);
    assert.equal(after.chunks, before.chunks - 1);
    assert.ok(!after.files.includes(oldKey), 'the old chunk file is removed');
    assert.ok(after.files.includes(youngKey), 'the young chunk file stays');
    assert.equal(after.quotaBytes, before.quotaBytes - SMALL_FILE.length, 'the quota is freed');
    assertError(await processChunked({ uploadId: old, fileName: 'squares.geojson' }), 404, 'not_found');
    assert.match(
      assertFieldError(await processChunked({ uploadId: young, fileName: 'squares.geojson' }), 'chunkIndex').message,
      /Chunk 1 of 2/,
    );
  });
});
