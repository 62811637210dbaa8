/**
 * Who may see and restyle rasters: members by role, room tokens by permission and room,
 * anonymous readers of public rooms, visitors of a public deck (only the rasters its slides
 * show), strangers; slides' rasterLayerIds and the presentation; the public colormap list.
 * Contract: docs/http-interface.md (Authentication; permissions), docs/contract-decisions.md ("Rooms",
 * "Layers and rasters", "Drawings, presentation, history, live changes"), docs/decisions.md.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  createRoomWithMembers,
  issueToken,
  scaffoldSuite,
  TOKEN_ERRORS,
} from '../helpers.js';
import {
  makeUploadFixtures,
  mplColours,
  newRaster,
  patchDisplay,
  type RasterLayer,
  tilePath,
} from '../support/rasters.js';

let fixtures: ReturnType<typeof makeUploadFixtures>;
let privateRoom: string;
let publicRoom: string;
let inPrivate: RasterLayer;
let inPublic: RasterLayer;

const s = scaffoldSuite({ rooms: [] }, async () => {
  fixtures = makeUploadFixtures();
  privateRoom = await createRoomWithMembers(s.t.app, s.users);
  publicRoom = await createRoom(s.t.app, s.users.owner, undefined, { isPublic: true });
  inPrivate = await newRaster(s.t.app, privateRoom, s.users.owner.token, fixtures.file('grid-2056.tif'));
  inPublic = await newRaster(s.t.app, publicRoom, s.users.owner.token, fixtures.file('grid-2056.tif'));
});
after(async () => {
  fixtures?.remove();
});

const VIEW = { lat: 46.95, lng: 7.45, zoom: 12 };
const urls = (roomId: string, layer: RasterLayer) => ({
  list: `/api/rooms/${roomId}/raster-layers`,
  tile: tilePath(roomId, layer.id, layer.maxZoom, 0, 0),
  point: `/api/rooms/${roomId}/raster-layers/${layer.id}/point?lon=7.4&lat=46.9`,
});
const reads = (roomId: string, layer: RasterLayer) => Object.values(urls(roomId, layer));

describe('a private room', () => {
  test('members read; anonymous 401, strangers 403; only owners and editors restyle', async () => {
    for (const url of reads(privateRoom, inPrivate)) {
      assertError(await call(s.t.app, 'GET', url), 401, 'unauthorized');
      assertError(await call(s.t.app, 'GET', url, { auth: s.users.stranger.token }), 403, 'forbidden');
      for (const member of [s.users.viewer, s.users.editor, s.users.owner])
        assert.equal((await call(s.t.app, 'GET', url, { auth: member.token })).statusCode, 200, url);
    }
    const patch = (auth?: string) => patchDisplay(s.t.app, privateRoom, inPrivate.id, { opacity: 0.8 }, auth);
    assertError(await patch(), 401, 'unauthorized');
    assertError(await patch(s.users.stranger.token), 403, 'forbidden');
    assertError(await patch(s.users.viewer.token), 403, 'forbidden');
    assertOk(await patch(s.users.editor.token));
  });

  test("room tokens: read to read, write to restyle; another room's token is refused", async () => {
    const reader = await issueToken(s.t.app, s.users.owner, privateRoom, ['read']);
    const writer = await issueToken(s.t.app, s.users.owner, privateRoom, ['write']);
    const foreign = await issueToken(s.t.app, s.users.owner, publicRoom, ['read', 'write', 'upload']);
    for (const url of reads(privateRoom, inPrivate)) {
      assert.equal((await call(s.t.app, 'GET', url, { auth: reader.token })).statusCode, 200);
      assertError(await call(s.t.app, 'GET', url, { auth: writer.token }), 403, 'forbidden', TOKEN_ERRORS.lacksRead);
      assertError(await call(s.t.app, 'GET', url, { auth: foreign.token }), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    }
    assertError(
      await patchDisplay(s.t.app, privateRoom, inPrivate.id, { opacity: 0.5 }, reader.token),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksWrite,
    );
    assertError(
      await patchDisplay(s.t.app, privateRoom, inPrivate.id, { opacity: 0.5 }, foreign.token),
      403,
      'forbidden',
      TOKEN_ERRORS.wrongRoom,
    );
    assertOk(await patchDisplay(s.t.app, privateRoom, inPrivate.id, { opacity: 0.5 }, writer.token));
    // Deleting a layer needs a session: tokens cannot, even with every permission.
    const all = await issueToken(s.t.app, s.users.owner, privateRoom, ['read', 'write', 'upload']);
    assertError(
      await call(s.t.app, 'DELETE', `/api/layers/${inPrivate.id}`, { auth: all.token }),
      403,
      'api_token_not_allowed',
    );
  });

  test("a raster id of another room is 404 in this room's paths", async () => {
    for (const url of reads(privateRoom, inPublic).slice(1))
      assertError(await call(s.t.app, 'GET', url, { auth: s.users.owner.token }), 404, 'not_found');
  });
});

describe('public rooms and public decks', () => {
  test('a public room: anyone reads the list, tiles and points; nobody anonymous restyles', async () => {
    for (const url of reads(publicRoom, inPublic)) {
      assert.equal((await call(s.t.app, 'GET', url)).statusCode, 200, url);
      assert.equal((await call(s.t.app, 'GET', url, { auth: s.users.stranger.token })).statusCode, 200, url);
    }
    assertError(await patchDisplay(s.t.app, publicRoom, inPublic.id, { opacity: 0.5 }), 401, 'unauthorized');
    assertError(
      await patchDisplay(s.t.app, publicRoom, inPublic.id, { opacity: 0.5 }, s.users.stranger.token),
      403,
      'forbidden',
    );
  });

  test('a public deck shows the tiles and values of the rasters on its slides, and nothing else', async () => {
    const roomId = await createRoomWithMembers(s.t.app, s.users);
    const shown = await newRaster(s.t.app, roomId, s.users.owner.token, fixtures.file('grid-2056.tif'));
    const hidden = await newRaster(s.t.app, roomId, s.users.owner.token, fixtures.file('rgb-2056.tif'));
    assertOk(
      await call(s.t.app, 'POST', `/api/rooms/${roomId}/presentation/slides`, {
        auth: s.users.owner.token,
        body: { title: 'Grid', view: VIEW, rasterLayerIds: [shown.id] },
      }),
      201,
    );
    assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
        auth: s.users.owner.token,
        body: { isPublic: true },
      }),
    );
    const { list, tile, point } = urls(roomId, shown);
    for (const url of [tile, point]) assert.equal((await call(s.t.app, 'GET', url)).statusCode, 200, url);
    for (const url of reads(roomId, hidden).slice(1)) assertError(await call(s.t.app, 'GET', url), 404, 'not_found');
    assertError(await call(s.t.app, 'GET', list), 401, 'unauthorized');
    assertError(await patchDisplay(s.t.app, roomId, shown.id, { opacity: 0.5 }), 401, 'unauthorized');
    const presentation = assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/presentation`));
    assert.deepEqual(presentation.rasterLayers, [shown]);
  });
});

describe('slides and the colormap list', () => {
  test("rasterLayerIds must name the room's rasters; the presentation carries them whole", async () => {
    const roomId = await createRoomWithMembers(s.t.app, s.users);
    const raster = await newRaster(s.t.app, roomId, s.users.owner.token, fixtures.file('rgb-2056.tif'));
    const slides = `/api/rooms/${roomId}/presentation/slides`;
    const post = (rasterLayerIds: string[]) =>
      call(s.t.app, 'POST', slides, { auth: s.users.owner.token, body: { title: 'A', view: VIEW, rasterLayerIds } });
    assertError(await post(['layer-absent']), 400, 'validation_error');
    assertError(await post([inPrivate.id]), 400, 'validation_error'); // another room's raster
    const { slide } = assertOk(await post([raster.id]), 201);
    assert.deepEqual(slide.rasterLayerIds, [raster.id]);
    const presentation = assertOk(
      await call(s.t.app, 'GET', `/api/rooms/${roomId}/presentation`, { auth: s.users.viewer.token }),
    );
    assert.deepEqual(presentation.rasterLayers, [raster]);
    assert.deepEqual(presentation.layers, []);
  });

  test('GET /api/colormaps needs no credential and lists at least the decided names, each reversible', async () => {
    const res = await call(s.t.app, 'GET', '/api/colormaps');
    const { colormaps } = assertOk(res);
    const names = colormaps.map((c: { name: string }) => c.name);
    const decided = [
      'viridis',
      'plasma',
      'inferno',
      'magma',
      'cividis',
      'terrain',
      'gray',
      'jet',
      'turbo',
      'spectral',
      'rdylgn',
      'rdbu',
      'blues',
      'greens',
      'reds',
      'ylorrd',
      'hot',
      'coolwarm',
    ];
    assert.deepEqual(
      decided.filter((name) => !names.includes(name)),
      [],
    );
    for (const colormap of colormaps) {
      assert.equal(colormap.reversedName, `${colormap.name}_r`);
      assert.equal(colormap.stops.length, 9);
      for (const stop of colormap.stops) assert.match(stop, /^#[0-9a-f]{6}$/);
    }
    const viridis = colormaps.find((c: { name: string }) => c.name === 'viridis');
    const hex = (rgba: number[]) =>
      `#${rgba
        .slice(0, 3)
        .map((c) => c.toString(16).padStart(2, '0'))
        .join('')}`;
    assert.deepEqual(
      [viridis.stops[0], viridis.stops[8]],
      mplColours('viridis', 0, 1, [0, 1]).map(hex),
      "matplotlib's ends",
    );
    // Any listed name (and its reversal) is accepted by the display.
    assertOk(await patchDisplay(s.t.app, privateRoom, inPrivate.id, { colormap: 'rdylgn_r' }, s.users.owner.token));
    assert.match(String(res.headers['cache-control']), /public/);
  });
});
