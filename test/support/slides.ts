import assert from 'node:assert/strict';
import {
  assertOk,
  call,
  createRoomWithMembers,
  roomCounts,
  roomHistory,
  type TestApp,
  type Users,
} from '../helpers.js';

/** What the slide tests share: a slide's keys, the deck's URLs and calls. */

export const SLIDE_KEYS = [
  'baseLayer',
  'body',
  'createdAt',
  'createdBy',
  'drawingIds',
  'id',
  'layerIds',
  'markerIds',
  'position',
  'rasterLayerIds',
  'title',
  'updatedAt',
  'view',
].sort();
export const PRESENTATION_KEYS = ['drawings', 'layers', 'markers', 'rasterLayers', 'slides'];
export const BASE_LAYERS = ['osm', 'carto', 'voyager', 'satellite', 'swisstopo', 'swissimage'];
export const VIEW = { lat: 46.95, lng: 7.45, zoom: 12 };

export const slidesUrl = (roomId: string) => `/api/rooms/${roomId}/presentation/slides`;
export const slideUrl = (roomId: string, slideId: string) => `/api/rooms/${roomId}/presentation/slides/${slideId}`;
export const orderUrl = (roomId: string) => `/api/rooms/${roomId}/presentation/slides/order`;
export const presentationUrl = (roomId: string) => `/api/rooms/${roomId}/presentation`;

export type Slide = Record<string, any> & { id: string; position: number };

/**
 * The slide calls of a test file, bound to its world (read at each call, so the file can create
 * them at load time and set the world in `before`); the owner's credential where none is given.
 */
export function slideCalls(world: () => { t: TestApp; users: Pick<Users, 'owner' | 'editor' | 'viewer'> }) {
  const app = () => world().t.app;
  const owner = () => world().users.owner.token;

  const newRoom = (body: object = {}) => createRoomWithMembers(app(), world().users, body);
  const postSlide = (roomId: string, body: unknown, auth?: string) =>
    call(app(), 'POST', slidesUrl(roomId), { auth, body });
  const patchSlide = (roomId: string, slideId: string, body: unknown, auth?: string) =>
    call(app(), 'PATCH', slideUrl(roomId, slideId), { auth, body });
  const deleteSlide = (roomId: string, slideId: string, auth?: string) =>
    call(app(), 'DELETE', slideUrl(roomId, slideId), { auth });
  const reorder = (roomId: string, slideIds: unknown, auth?: string) =>
    call(app(), 'PUT', orderUrl(roomId), { auth, body: { slideIds } });
  const getPresentation = (roomId: string, auth?: string) => call(app(), 'GET', presentationUrl(roomId), { auth });
  const publishDeck = (roomId: string, isPublic: boolean, auth: string) =>
    call(app(), 'PATCH', `/api/rooms/${roomId}/presentation/public`, { auth, body: { isPublic } });

  async function createSlide(roomId: string, auth: string, body: Record<string, unknown> = {}): Promise<Slide> {
    const json = assertOk(await postSlide(roomId, { title: 'A slide', view: VIEW, ...body }, auth), 201);
    assert.equal(json.success, true);
    return json.slide;
  }

  async function list(roomId: string, auth = owner()): Promise<Slide[]> {
    const body = assertOk(await call(app(), 'GET', slidesUrl(roomId), { auth }));
    assert.deepEqual(Object.keys(body), ['slides']);
    return body.slides;
  }

  async function createMarker(roomId: string, title: string) {
    const res = await call(app(), 'POST', `/api/rooms/${roomId}/markers`, {
      auth: owner(),
      body: { latitude: 46.9, longitude: 7.4, title },
    });
    return assertOk(res, 201).marker as Record<string, any> & { id: string };
  }

  async function createDrawing(roomId: string, label: string) {
    const res = await call(app(), 'POST', `/api/rooms/${roomId}/drawings`, {
      auth: owner(),
      body: { geometry: { type: 'Point', coordinates: [7.4, 46.9] }, label },
    });
    return assertOk(res, 201).drawing as Record<string, any> & { id: string };
  }

  const history = (roomId: string) => roomHistory(app(), roomId, owner());

  const counts = (roomId: string) => roomCounts(app(), roomId, owner());

  return {
    newRoom,
    postSlide,
    patchSlide,
    deleteSlide,
    reorder,
    getPresentation,
    publishDeck,
    createSlide,
    list,
    createMarker,
    createDrawing,
    history,
    counts,
  };
}

export const ids = (items: { id: string }[]) => items.map((i) => i.id);
export const sorted = (values: string[]) => [...values].sort();

/** The deck order as (id, position) pairs; positions must be 0..n-1 in order. */
export function assertDeck(slides: Slide[], expectedIds: string[]) {
  assert.deepEqual(ids(slides), expectedIds);
  assert.deepEqual(
    slides.map((s) => s.position),
    expectedIds.map((_, i) => i),
  );
}
