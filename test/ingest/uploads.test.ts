import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  multipart,
  scaffold,
  signup,
  type TestApp,
  type Users,
} from '../helpers.js';

/**
 * Every multipart upload streams to a temporary file while its bytes are counted; a
 * malformed, truncated or abandoned body is answered at once and leaves nothing behind.
 * These tests speak HTTP over a real socket, since a truncated body cannot be injected.
 */

let t: TestApp;
let users: Pick<Users, 'owner' | 'editor' | 'viewer'>;
let room: string;
let port: number;

before(async () => {
  ({ t, users, room } = await scaffold({ users: ['owner', 'editor', 'viewer'] }));
  port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
});
after(() => t?.close());

const tmpDir = () => path.join(t.config.dataDir, 'tmp');
const leftovers = () => [
  ...(existsSync(tmpDir()) ? readdirSync(tmpDir()) : []),
  ...(existsSync(path.join(t.config.dataDir, 'blobs', '.tmp'))
    ? readdirSync(path.join(t.config.dataDir, 'blobs', '.tmp'))
    : []),
];

/** Sends raw bytes as an HTTP request; resolves with the status line and body (or null if the server closed). */
function rawRequest(
  head: string,
  body: Buffer,
  { closeAfterSend = false } = {},
): Promise<{ status: number; body: string } | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      resolve(match ? { status: Number(match[1]), body: answer.slice(answer.indexOf('\r\n\r\n') + 4) } : null);
    });
    socket.write(head);
    socket.write(body, () => {
      if (closeAfterSend) socket.destroy();
    });
  });
}

const headFor = (url: string, contentType: string, length: number) =>
  `POST ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${users.owner.token}\r\n` +
  `Content-Type: ${contentType}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;

const UPLOAD_ROUTES = () => [
  `/api/rooms/${room}/bulk-import`,
  `/api/rooms/${room}/markers/upload-image`,
  `/api/rooms/${room}/marker-icons`,
];

describe('malformed multipart bodies', () => {
  test('a multipart body without a boundary is 400 invalid_body on every upload route', async () => {
    for (const url of UPLOAD_ROUTES()) {
      const res = await call(t.app, 'POST', url, {
        auth: users.owner.token,
        headers: { 'content-type': 'multipart/form-data' },
        body: 'x',
      });
      assertError(res, 400, 'invalid_body');
    }
  });

  test('a body cut before its closing boundary is answered 400 at once, and no file is left', async () => {
    const field = { bulk: 'file', image: 'image', icon: 'icon' };
    for (const [url, name] of UPLOAD_ROUTES().map((u, i) => [u, Object.values(field)[i]!] as const)) {
      const body = Buffer.from(
        `--XYZ\r\nContent-Disposition: form-data; name="${name}"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n` +
          '{"type":"FeatureCollection","features":[' +
          'x'.repeat(50_000),
      );
      const started = Date.now();
      const answer = await rawRequest(headFor(url, 'multipart/form-data; boundary=XYZ', body.length), body);
      assert.ok(answer, `${url}: an answer`);
      assert.equal(answer.status, 400, `${url}: ${answer.body}`);
      assert.equal(JSON.parse(answer.body).error, 'invalid_body');
      assert.ok(Date.now() - started < 5000, 'answered at once, not after a timeout');
    }
    await sleep(50);
    assert.deepEqual(leftovers(), []);
  });

  test('a client that goes away mid-upload leaves no temporary file', async () => {
    const half = Buffer.concat([
      Buffer.from('--XYZ\r\nContent-Disposition: form-data; name="file"; filename="big.geojson"\r\n\r\n'),
      Buffer.alloc(2 * 1024 * 1024, 0x20),
    ]);
    const answer = await rawRequest(
      headFor(`/api/rooms/${room}/bulk-import`, 'multipart/form-data; boundary=XYZ', half.length * 3),
      half,
      { closeAfterSend: true },
    );
    assert.equal(answer, null, 'no answer to a client that left');
    for (let i = 0; i < 100 && leftovers().length > 0; i++) await sleep(20);
    assert.deepEqual(leftovers(), []);
    assert.equal(
      assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.owner.token })).count,
      0,
    );
  });

  test('a part over its cap is 413 file_too_large before the rest of the body is read', async () => {
    const { payload, headers } = await multipart({
      icon: { data: Buffer.alloc(3 * 1024 * 1024, 0x41), filename: 'huge.svg' },
      name: 'x',
      size: '32',
    });
    const answer = await rawRequest(
      headFor(`/api/rooms/${room}/marker-icons`, headers['content-type'], payload.length),
      payload,
    );
    assert.equal(answer?.status, 413);
    assert.equal(JSON.parse(answer!.body).error, 'file_too_large');
    // The refused part's temporary file is removed once the stream closes (sooner or later on a busy machine).
    for (let i = 0; i < 100 && leftovers().length > 0; i++) await sleep(20);
    assert.deepEqual(leftovers(), []);
  });
});

describe('what a crash leaves', () => {
  test('half-received uploads and half-written files are removed at start', async () => {
    mkdirSync(tmpDir(), { recursive: true });
    writeFileSync(path.join(tmpDir(), 'left-by-a-crash'), 'partial');
    mkdirSync(path.join(t.config.dataDir, 'blobs', '.tmp'), { recursive: true });
    writeFileSync(path.join(t.config.dataDir, 'blobs', '.tmp', 'half-written'), 'partial');
    await t.restart();
    assert.deepEqual(leftovers(), []);
    port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
  });
});

describe('quota', () => {
  test("a bulk import that does not fit in the owner's quota is 413 quota_exceeded and nothing is kept", async () => {
    const small = await scaffold({ users: ['owner'], rooms: [], config: { storageQuotaBytes: 1000 } });
    try {
      const owner = await signup(small.t.app);
      const roomId = await createRoom(small.t.app, owner);
      const text = JSON.stringify({
        type: 'FeatureCollection',
        features: Array.from({ length: 50 }, (_, i) => ({
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [i, 0] },
          properties: {},
        })),
      });
      const { payload, headers } = await multipart({ file: { data: text, filename: 'points.geojson' } });
      const res = await small.t.app.inject({
        method: 'POST',
        url: `/api/rooms/${roomId}/bulk-import`,
        headers: { ...headers, authorization: `Bearer ${owner.token}` },
        payload,
      });
      assert.equal(res.statusCode, 413, res.body);
      assert.equal(res.json().error, 'quota_exceeded');
      const imports = path.join(small.t.config.dataDir, 'blobs', 'imports');
      assert.deepEqual(existsSync(imports) ? readdirSync(imports, { recursive: true }) : [], []);
      assert.deepEqual(readdirSync(path.join(small.t.config.dataDir, 'tmp')), []);
    } finally {
      await small.t.close();
    }
  });
});
