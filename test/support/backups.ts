import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { uniqueEmail, uniqueRoomId } from '../helpers.js';
import { type Instance, request } from './instances.js';

/**
 * The `maproom-admin` command as a process, and a deployment's worth of writes to back up and
 * find again after a restore: an account, a room with a room token, markers and a photo.
 */

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/maproom-admin.mjs');

/** Runs `maproom-admin` with the given settings; resolves with its exit code and output. */
export function admin(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** What was written before a backup: who, where, and the photo's bytes. */
export interface Seed {
  session: string;
  roomToken: string;
  roomId: string;
  markerId: string;
  photoKey: string;
  photo: Buffer;
}

/** Signs up, makes a room, a room token and a marker with a photo. */
export async function seedDeployment(instance: Instance): Promise<Seed> {
  const signup = await request(instance, 'POST', '/api/auth/signup', {
    body: { email: uniqueEmail('backup'), password: 'correct horse battery' },
  });
  assert.equal(signup.status, 201, JSON.stringify(signup.body));
  const session = signup.body.token as string;
  const roomId = uniqueRoomId();
  assert.equal(
    (await request(instance, 'POST', `/api/rooms/${roomId}`, { auth: session, body: { name: 'Kept' } })).status,
    200,
  );
  const token = await request(instance, 'POST', `/api/rooms/${roomId}/api-tokens`, {
    auth: session,
    body: { name: 'script', permissions: ['read', 'write'], expiresInDays: 30 },
  });
  assert.equal(token.status, 200, JSON.stringify(token.body));
  const image = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366aa' } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.set('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'photo.png');
  const uploaded = await fetch(`${instance.url}/api/rooms/${roomId}/markers/upload-image`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session}` },
    body: form,
  });
  assert.equal(uploaded.status, 200);
  const { imageKey, thumbnailKey } = (await uploaded.json()) as { imageKey: string; thumbnailKey: string };
  const marker = await request(instance, 'POST', `/api/rooms/${roomId}/markers`, {
    auth: session,
    body: { latitude: 46.5, longitude: 7.5, title: 'with a photo', imageKey, thumbnailKey },
  });
  assert.equal(marker.status, 201, JSON.stringify(marker.body));
  const photo = await fetch(`${instance.url}/api/rooms/${roomId}/markers/image?key=${imageKey}`, {
    headers: { authorization: `Bearer ${session}` },
  });
  assert.equal(photo.status, 200);
  return {
    session,
    roomToken: token.body.token,
    roomId,
    markerId: marker.body.marker.id,
    photoKey: imageKey,
    photo: Buffer.from(await photo.arrayBuffer()),
  };
}

/**
 * Creates markers one after another until stopped, recording each acknowledged one with the
 * moment its answer arrived: the writes a backup begun later must hold.
 */
export function keepWriting(instance: Instance, seed: Seed) {
  const acknowledged: { id: string; at: number }[] = [];
  let stopped = false;
  const writing = (async () => {
    for (let i = 0; !stopped; i++) {
      const created = await request(instance, 'POST', `/api/rooms/${seed.roomId}/markers`, {
        auth: seed.roomToken,
        body: { latitude: 46 + i / 1e4, longitude: 7, title: `written ${i}` },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      acknowledged.push({ id: created.body.marker.id, at: Date.now() });
    }
  })();
  return {
    acknowledged,
    async stop() {
      stopped = true;
      await writing;
    },
  };
}

/** The restored deployment has the seed (session, room token, photo) and every marker in `ids`. */
export async function assertRestored(instance: Instance, seed: Seed, ids: string[]) {
  const markers = await request(instance, 'GET', `/api/rooms/${seed.roomId}/markers`, { auth: seed.roomToken });
  assert.equal(markers.status, 200, 'the room token still works');
  const found = new Set((markers.body.markers as { id: string }[]).map((m) => m.id));
  const lost = [seed.markerId, ...ids].filter((id) => !found.has(id));
  assert.deepEqual(lost, [], 'every write acknowledged before the backup began is restored');
  const me = await request(instance, 'GET', '/api/auth/me', { auth: seed.session });
  assert.equal(me.status, 200, 'the session still works');
  const photo = await fetch(`${instance.url}/api/rooms/${seed.roomId}/markers/image?key=${seed.photoKey}`, {
    headers: { authorization: `Bearer ${seed.session}` },
  });
  assert.equal(photo.status, 200);
  assert.ok(Buffer.from(await photo.arrayBuffer()).equals(seed.photo), 'the photo comes back byte for byte');
}
