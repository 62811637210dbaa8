import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { LiveHub, LiveListener, LiveSubscription, RoomEvent as LiveEvent } from '../../src/infra/live-hub.js';
import { assertOk, call, type HistoryEvent, postMultipart, type TestApp, type Users } from '../helpers.js';

/** What the markers-*.test.ts files share: the marker's shape, photo fixtures and the calls they make. */

export const MARKER_ID = /^marker-/;

/** The fields every marker view carries (read-one, list, PATCH answer to a reader). */
export const MARKER_KEYS = [
  'color',
  'createdAt',
  'createdBy',
  'description',
  'embeddedMediaUrl',
  'eventDate',
  'id',
  'imageKey',
  'imageMeta',
  'latitude',
  'longitude',
  'markerIconId',
  'markerIconSize',
  'mediaSize',
  'tags',
  'thumbnailKey',
  'title',
  'updatedAt',
].sort();

/** A live hub that records what it publishes and, while `failing`, rejects every publish. */
export class SwitchableLiveHub implements LiveHub {
  failing = false;
  readonly published: LiveEvent[] = [];
  async publish(event: LiveEvent): Promise<void> {
    if (this.failing) throw new Error('live hub unreachable (test)');
    this.published.push(event);
  }
  subscribe(_roomId: string, _listener: LiveListener): LiveSubscription {
    return { ready: Promise.resolve(), unsubscribe: () => {} };
  }
  async close(): Promise<void> {}
}

export interface Upload {
  imageKey: string;
  thumbnailKey: string;
  exif: { takenAt: number | null; camera: { make: string | null; model: string | null } | null; gps: unknown };
}

export interface Photos {
  /** A JPEG with DateTimeOriginal, camera make and model, and a GPS position. */
  photoA: Buffer;
  /** A JPEG with another DateTimeOriginal, a camera make only, and no GPS. */
  photoB: Buffer;
  thumb: Buffer;
}

function exiftool(file: string, args: string[]) {
  execFileSync('exiftool', ['-q', '-overwrite_original', ...args, file]);
}

/** Two tagged JPEGs and a thumbnail, written by sharp and tagged by exiftool in a temporary directory. */
export async function makePhotos(): Promise<Photos> {
  const work = mkdtempSync(path.join(tmpdir(), 'maproom-markers-'));
  try {
    const raw = Buffer.alloc(40 * 30 * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * 13) % 256;
    const source = sharp(raw, { raw: { width: 40, height: 30, channels: 3 } });
    const plain = await source.clone().jpeg().toBuffer();
    const thumb = await source.clone().resize(20, 15).jpeg().toBuffer();
    const a = path.join(work, 'a.jpg');
    writeFileSync(a, plain);
    exiftool(a, [
      '-DateTimeOriginal=2021:03:04 05:06:07',
      '-Make=Canon',
      '-Model=Canon EOS R5',
      '-GPSLatitude=46.5',
      '-GPSLatitudeRef=N',
      '-GPSLongitude=7.25',
      '-GPSLongitudeRef=E',
      '-GPSAltitude=1200',
      '-GPSAltitudeRef=Above Sea Level',
    ]);
    const b = path.join(work, 'b.jpg');
    writeFileSync(b, plain);
    exiftool(b, ['-DateTimeOriginal=2022:08:09 10:11:12', '-Make=Fujifilm']);
    return { photoA: readFileSync(a), photoB: readFileSync(b), thumb };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export const markerUrl = (roomId: string, markerId: string) => `/api/rooms/${roomId}/markers/${markerId}`;

/** What the calls below need, read when they run: the file's app, users and photos. */
export interface MarkerWorld {
  t: TestApp;
  users: Users;
  photos?: Photos;
}

/**
 * The marker calls of a test file, bound to its world (read at each call, so the file can
 * create them at load time and set the world in `before`).
 */
export function markerCalls(world: () => MarkerWorld) {
  const photos = () => world().photos ?? assert.fail('this file made no photos');

  async function uploadImage(app: TestApp, roomId: string, auth: string, image = photos().photoA): Promise<Upload> {
    const res = await postMultipart(
      app.app,
      `/api/rooms/${roomId}/markers/upload-image`,
      { image, thumbnail: photos().thumb },
      auth,
    );
    return assertOk(res) as Upload;
  }

  async function createMarker(roomId: string, auth: string, body: Record<string, unknown> = {}, app = world().t) {
    const res = await call(app.app, 'POST', `/api/rooms/${roomId}/markers`, {
      auth,
      body: { latitude: 46.2, longitude: 6.1, ...body },
    });
    const json = assertOk(res, 201);
    return json.marker as Record<string, any> & { id: string };
  }

  const getMarker = (roomId: string, markerId: string, auth?: string, app = world().t) =>
    call(app.app, 'GET', markerUrl(roomId, markerId), { auth });
  const patchMarker = (roomId: string, markerId: string, body: unknown, auth?: string, app = world().t) =>
    call(app.app, 'PATCH', markerUrl(roomId, markerId), { auth, body });
  const deleteMarker = (roomId: string, markerId: string, auth?: string, app = world().t) =>
    call(app.app, 'DELETE', markerUrl(roomId, markerId), { auth });

  /** The stored marker, read by the owner. */
  async function stored(roomId: string, markerId: string, app = world().t) {
    return assertOk(await getMarker(roomId, markerId, world().users.owner.token, app)).marker as Record<string, any>;
  }

  async function history(roomId: string, query = 'limit=500', app = world().t): Promise<HistoryEvent[]> {
    const res = await call(app.app, 'GET', `/api/rooms/${roomId}/history?${query}`, {
      auth: world().users.owner.token,
    });
    const body = assertOk(res);
    assert.deepEqual(Object.keys(body), ['events']);
    return body.events;
  }

  const imageStatus = async (roomId: string, key: string, app = world().t) =>
    (
      await call(app.app, 'GET', `/api/rooms/${roomId}/markers/image?key=${encodeURIComponent(key)}`, {
        auth: world().users.owner.token,
      })
    ).statusCode;

  async function storedFileRows(keys: string[], app = world().t) {
    return app.database.db.selectFrom('stored_files').select('key').where('key', 'in', keys).execute();
  }

  /** Both files of the upload are served and recorded. */
  async function assertFilesPresent(roomId: string, upload: Upload, app = world().t) {
    assert.equal(await imageStatus(roomId, upload.imageKey, app), 200);
    assert.equal(await imageStatus(roomId, upload.thumbnailKey, app), 200);
    assert.equal((await storedFileRows([upload.imageKey, upload.thumbnailKey], app)).length, 2);
  }

  /** Neither file of the upload is served or recorded any more. */
  async function assertFilesGone(roomId: string, upload: Upload, app = world().t) {
    assert.equal(await imageStatus(roomId, upload.imageKey, app), 404);
    assert.equal(await imageStatus(roomId, upload.thumbnailKey, app), 404);
    assert.deepEqual(await storedFileRows([upload.imageKey, upload.thumbnailKey], app), []);
  }

  async function registerIcon(roomId: string, auth: string): Promise<string> {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24"><circle cx="12" cy="12" r="10" fill="#e33"/></svg>';
    const parts = { icon: { data: svg, filename: 'icon.svg', type: 'image/svg+xml' }, name: 'Pin', size: '24' };
    return assertOk(await postMultipart(world().t.app, `/api/rooms/${roomId}/marker-icons`, parts, auth), 201).iconId;
  }

  async function markerCount(roomId: string) {
    return assertOk(
      await call(world().t.app, 'GET', `/api/rooms/${roomId}/markers`, { auth: world().users.owner.token }),
    ).count as number;
  }

  return {
    uploadImage,
    createMarker,
    getMarker,
    patchMarker,
    deleteMarker,
    stored,
    history,
    imageStatus,
    storedFileRows,
    assertFilesPresent,
    assertFilesGone,
    registerIcon,
    markerCount,
  };
}
