/**
 * The public deck's one rule, fed by the rows of what each slide shows (`slide_objects`): a
 * visitor of a published deck (anonymous, private room) reaches a layer, a marker's photo or
 * its icon exactly while a slide shows it (the photo and icon through a shown marker). Every
 * write of slides keeps the rows in step at once: PATCH, DELETE, reorder, clear, import; the
 * migration fills them for slides written before it.
 * Contract: docs/http-interface.md (GET /presentation, PATCH /presentation/public) and docs/contract-decisions.md
 * ("Drawings, presentation, history, live changes").
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { fillSlideObjects } from '../../src/db/migrations/0008_slide_objects.js';
import { assertOk, call, createRoom, postMultipart, scaffold, type TestApp, type Users } from '../helpers.js';
import { exported, importFile } from '../support/exports.js';
import { createInlineLayer } from '../support/layers.js';

const VIEW = { lat: 46.95, lng: 7.45, zoom: 12 };
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>';

let t: TestApp;
let users: Users;
let work: string;

before(async () => {
  ({ t, users } = await scaffold({ rooms: [] }));
  work = mkdtempSync(path.join(tmpdir(), 'maproom-deck-'));
});
after(async () => {
  await t?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const owner = () => users.owner.token;

/** A private room with an icon, a photo, a marker using both, and a vector layer. */
async function privateRoom() {
  const roomId = await createRoom(t.app, users.owner);
  const base = `/api/rooms/${roomId}`;
  const icon = assertOk(
    await postMultipart(
      t.app,
      `${base}/marker-icons`,
      { name: 'Pin', size: '24', icon: { data: SVG, filename: 'pin.svg', type: 'image/svg+xml' } },
      owner(),
    ),
    201,
  );
  const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366cc' } })
    .jpeg()
    .toBuffer();
  const photo = assertOk(
    await postMultipart(
      t.app,
      `${base}/markers/upload-image`,
      { image: { data: jpeg, filename: 'a.jpg', type: 'image/jpeg' } },
      owner(),
    ),
  );
  const marker = await createMarker(roomId, { markerIconId: icon.iconId, ...keysOf(photo) });
  const layer = await createInlineLayer(t.app, roomId, owner(), { name: 'Fields' });
  return { roomId, iconId: icon.iconId as string, photo, marker, layer };
}

const keysOf = (photo: { imageKey: string; thumbnailKey: string }) => ({
  imageKey: photo.imageKey,
  thumbnailKey: photo.thumbnailKey,
});

async function createMarker(roomId: string, body: Record<string, unknown>) {
  const res = await call(t.app, 'POST', `/api/rooms/${roomId}/markers`, {
    auth: owner(),
    body: { latitude: 46.9, longitude: 7.4, title: 'Bridge', ...body },
  });
  return assertOk(res, 201).marker as { id: string };
}

async function createSlide(roomId: string, body: Record<string, unknown>) {
  const res = await call(t.app, 'POST', `/api/rooms/${roomId}/presentation/slides`, {
    auth: owner(),
    body: { title: 'A slide', view: VIEW, ...body },
  });
  return assertOk(res, 201).slide as { id: string };
}

const patchSlide = async (roomId: string, slideId: string, body: Record<string, unknown>) =>
  assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/presentation/slides/${slideId}`, { auth: owner(), body }));

const publish = async (roomId: string, isPublic: boolean) =>
  assertOk(
    await call(t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, { auth: owner(), body: { isPublic } }),
  );

type Room = Awaited<ReturnType<typeof privateRoom>>;

/** What a visitor of the deck (no credential) hears for each object, and the owner for the same URLs. */
async function statuses(room: Pick<Room, 'roomId' | 'iconId' | 'photo' | 'layer'>, auth?: string) {
  const get = async (url: string) => (await call(t.app, 'GET', url, { auth })).statusCode;
  const base = `/api/rooms/${room.roomId}`;
  return {
    layer: await get(`/api/layers/${room.layer.id}/features`),
    photo: await get(`${base}/markers/image?key=${encodeURIComponent(room.photo.imageKey)}`),
    thumbnail: await get(`${base}/markers/image?key=${encodeURIComponent(room.photo.thumbnailKey)}`),
    icon: await get(`${base}/marker-icons/${room.iconId}`),
  };
}
const all = (status: number) => ({ layer: status, photo: status, thumbnail: status, icon: status });
/** An unpublished deck: anonymous callers are 401 on the room's routes, 404 on a layer addressed by id. */
const UNPUBLISHED = { ...all(401), layer: 404 };

const objectRows = async (roomId: string) =>
  (
    await t.database.db
      .selectFrom('slide_objects')
      .select(['slide_id', 'object_type', 'object_id'])
      .where('room_id', '=', roomId)
      .execute()
  )
    .map((r) => `${r.slide_id} ${r.object_type} ${r.object_id}`)
    .sort();

test('slides written before the migration: their rows are filled from the lists, and only then give deck access', async () => {
  const room = await privateRoom();
  const drawing = assertOk(
    await call(t.app, 'POST', `/api/rooms/${room.roomId}/drawings`, {
      auth: owner(),
      body: { geometry: { type: 'Point', coordinates: [7.4, 46.9] } },
    }),
    201,
  ).drawing;
  // A slide as the service stored it before slide_objects existed: its lists only.
  const now = Date.now();
  await t.database.db
    .insertInto('slides')
    .values({
      id: 'slide-before-migration',
      room_id: room.roomId,
      position: 0,
      title: 'Old',
      body: null,
      view: JSON.stringify(VIEW),
      base_layer: null,
      marker_ids: JSON.stringify([room.marker.id]),
      layer_ids: JSON.stringify([room.layer.id]),
      raster_layer_ids: '[]',
      drawing_ids: JSON.stringify([drawing.id]),
      created_by: users.owner.id,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await publish(room.roomId, true);
  // Access reads the rows, not the lists: without rows the deck shows nothing.
  assert.deepEqual(await statuses(room), all(404));

  await fillSlideObjects(t.database.db, t.database.dialect);
  const expected = [
    `slide-before-migration drawing ${drawing.id}`,
    `slide-before-migration layer ${room.layer.id}`,
    `slide-before-migration marker ${room.marker.id}`,
  ].sort();
  assert.deepEqual(await objectRows(room.roomId), expected);
  assert.deepEqual(await statuses(room), all(200));
  // Filling again adds nothing; the API still answers the slide's lists.
  await fillSlideObjects(t.database.db, t.database.dialect);
  assert.deepEqual(await objectRows(room.roomId), expected);
  const deck = assertOk(await call(t.app, 'GET', `/api/rooms/${room.roomId}/presentation`));
  assert.deepEqual(deck.slides[0].markerIds, [room.marker.id]);
  assert.deepEqual(deck.slides[0].layerIds, [room.layer.id]);
  assert.deepEqual(deck.slides[0].drawingIds, [drawing.id]);
});

test('taking an object off a slide, or unpublishing the deck, takes it from visitors at once', async () => {
  const room = await privateRoom();
  const slide = await createSlide(room.roomId, { markerIds: [room.marker.id], layerIds: [room.layer.id] });
  assert.deepEqual(await statuses(room), UNPUBLISHED);
  await publish(room.roomId, true);
  assert.deepEqual(await statuses(room), all(200));

  await patchSlide(room.roomId, slide.id, { layerIds: [] });
  assert.deepEqual(await statuses(room), { ...all(200), layer: 404 });
  await patchSlide(room.roomId, slide.id, { markerIds: [] });
  assert.deepEqual(await statuses(room), all(404));
  // Members are not narrowed by the deck.
  assert.deepEqual(await statuses(room, owner()), all(200));

  await patchSlide(room.roomId, slide.id, { markerIds: [room.marker.id], layerIds: [room.layer.id] });
  assert.deepEqual(await statuses(room), all(200));
  await publish(room.roomId, false);
  assert.deepEqual(await statuses(room), UNPUBLISHED);
});

test('deleting a marker takes its photo and icon off the deck, though another marker keeps the files', async () => {
  const room = await privateRoom();
  // A second marker, on no slide, with the same photo and icon.
  await createMarker(room.roomId, { title: 'Copy', markerIconId: room.iconId, ...keysOf(room.photo) });
  await createSlide(room.roomId, { markerIds: [room.marker.id] });
  await publish(room.roomId, true);
  assert.deepEqual(await statuses(room), { ...all(200), layer: 404 });

  assertOk(await call(t.app, 'DELETE', `/api/rooms/${room.roomId}/markers/${room.marker.id}`, { auth: owner() }));
  assert.deepEqual(await statuses(room), all(404));
  assert.deepEqual(await statuses(room, owner()), all(200));
});

test('a marker that changes its icon takes the deck to the new one', async () => {
  const room = await privateRoom();
  await createSlide(room.roomId, { markerIds: [room.marker.id] });
  await publish(room.roomId, true);
  const other = assertOk(
    await postMultipart(
      t.app,
      `/api/rooms/${room.roomId}/marker-icons`,
      { name: 'Flag', size: '24', icon: { data: SVG, filename: 'flag.svg', type: 'image/svg+xml' } },
      owner(),
    ),
    201,
  );
  assertOk(
    await call(t.app, 'PATCH', `/api/rooms/${room.roomId}/markers/${room.marker.id}`, {
      auth: owner(),
      body: { markerIconId: other.iconId },
    }),
  );
  assert.equal((await statuses(room)).icon, 404);
  assert.equal((await statuses({ ...room, iconId: other.iconId })).icon, 200);
});

test('reordering keeps what the deck shows; deleting a slide or clearing the room takes its objects away', async () => {
  const room = await privateRoom();
  const first = await createSlide(room.roomId, { markerIds: [room.marker.id] });
  const second = await createSlide(room.roomId, { layerIds: [room.layer.id] });
  await publish(room.roomId, true);
  const before = await objectRows(room.roomId);
  assertOk(
    await call(t.app, 'PUT', `/api/rooms/${room.roomId}/presentation/slides/order`, {
      auth: owner(),
      body: { slideIds: [second.id, first.id] },
    }),
  );
  assert.deepEqual(await statuses(room), all(200));
  assert.deepEqual(await objectRows(room.roomId), before);

  assertOk(
    await call(t.app, 'DELETE', `/api/rooms/${room.roomId}/presentation/slides/${second.id}`, { auth: owner() }),
  );
  assert.deepEqual(await statuses(room), { ...all(200), layer: 404 });
  assert.deepEqual(await objectRows(room.roomId), [`${first.id} marker ${room.marker.id}`]);

  assertOk(await call(t.app, 'POST', `/api/rooms/${room.roomId}/clear`, { auth: owner(), body: {} }));
  assert.deepEqual(await objectRows(room.roomId), []);
});

test('an imported deck shows what the exported one showed, under the new ids', async () => {
  const source = await privateRoom();
  await createSlide(source.roomId, { markerIds: [source.marker.id], layerIds: [source.layer.id] });
  const file = path.join(work, 'deck.gpkg');
  await exported(t.app, source.roomId, owner(), file);
  const target = await createRoom(t.app, users.owner);
  assertOk(await importFile(t.app, target, owner(), readFileSync(file)));
  await publish(target, true);

  const deck = assertOk(await call(t.app, 'GET', `/api/rooms/${target}/presentation`));
  const [marker] = deck.markers;
  const [layer] = deck.layers;
  assert.notEqual(layer.id, source.layer.id);
  const imported = {
    roomId: target,
    iconId: marker.markerIconId,
    photo: { imageKey: marker.imageKey, thumbnailKey: marker.thumbnailKey },
    layer,
  };
  assert.deepEqual(await statuses(imported), all(200));
});
