/**
 * The markers feed over HTTP: `GET /api/rooms/:roomId/markers/feed`, the room's markers as
 * columns for a map (docs/decisions.md, "The markers feed"): its fields, that it says what the list
 * says, that it follows the room's changes, and who may read it.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertError, assertOk, call, createRoom, issueToken, scaffoldSuite, TOKEN_ERRORS } from '../helpers.js';
import { markerCalls } from '../support/markers.js';

const s = scaffoldSuite({ rooms: ['room', 'otherRoom', 'publicRoom'] });
const { createMarker, patchMarker, deleteMarker, registerIcon } = markerCalls(() => s);

const FEED_KEYS = ['count', 'ids', 'latitudes', 'longitudes', 'colors', 'palette', 'icons', 'iconIds', 'iconSizes'];

interface Feed {
  count: number;
  ids: string[];
  latitudes: number[];
  longitudes: number[];
  colors: (number | null)[];
  palette: string[];
  icons: (number | null)[];
  iconIds: string[];
  iconSizes: (number | null)[];
}

const feedOf = async (roomId: string, auth = s.users.owner.token): Promise<Feed> =>
  assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/markers/feed`, { auth }));

/** The feed read back as markers with the fields it carries, in its order. */
function markersOf(feed: Feed) {
  for (const column of [feed.latitudes, feed.longitudes, feed.colors, feed.icons, feed.iconSizes])
    assert.equal(column.length, feed.count, 'every column has one entry per marker');
  return feed.ids.map((id, i) => ({
    id,
    latitude: feed.latitudes[i],
    longitude: feed.longitudes[i],
    color: feed.colors[i] === null ? null : feed.palette[feed.colors[i]!],
    markerIconId: feed.icons[i] === null ? null : feed.iconIds[feed.icons[i]!],
    markerIconSize: feed.iconSizes[i],
  }));
}

/** The same fields taken from the interface's list, `GET /markers`. */
async function listed(roomId: string) {
  const { markers } = assertOk(
    await call(s.t.app, 'GET', `/api/rooms/${roomId}/markers`, { auth: s.users.owner.token }),
  );
  return (markers as Record<string, unknown>[]).map(
    ({ id, latitude, longitude, color, markerIconId, markerIconSize }) => ({
      id,
      latitude,
      longitude,
      color,
      markerIconId,
      markerIconSize,
    }),
  );
}

describe('GET /api/rooms/:roomId/markers/feed', () => {
  let iconId: string;
  before(async () => {
    iconId = await registerIcon(s.room, s.users.owner.token);
    await createMarker(s.room, s.users.owner.token, { latitude: 46.948, longitude: 7.4474, color: '#e53e3e' });
    await createMarker(s.room, s.users.editor.token, { latitude: -33.865143, longitude: 151.2099, color: '#3182ce' });
    await createMarker(s.room, s.users.owner.token, {
      latitude: 0,
      longitude: -180,
      color: '#e53e3e',
      markerIconId: iconId,
      markerIconSize: 48,
    });
    await createMarker(s.room, s.users.owner.token, { latitude: 90, longitude: 180 });
    await createMarker(s.otherRoom, s.users.owner.token, { latitude: 1, longitude: 1, color: '#000000' });
  });

  test('answers exactly its columns: ids, positions, colours and icons by index, sizes', async () => {
    const feed = await feedOf(s.room);
    assert.deepEqual(Object.keys(feed).sort(), [...FEED_KEYS].sort());
    assert.equal(feed.count, 4);
    assert.deepEqual(feed.palette, ['#e53e3e', '#3182ce'], 'each colour once, in the order first used');
    assert.deepEqual(feed.colors, [0, 1, 0, null]);
    assert.deepEqual(feed.iconIds, [iconId]);
    assert.deepEqual(feed.icons, [null, null, 0, null]);
    assert.deepEqual(feed.iconSizes, [null, null, 48, null]);
    assert.deepEqual(feed.latitudes, [46.948, -33.865143, 0, 90]);
    assert.deepEqual(feed.longitudes, [7.4474, 151.2099, -180, 180]);
  });

  test("says what the interface's list says of each marker, in the same order, and nothing of another room", async () => {
    assert.deepEqual(markersOf(await feedOf(s.room)), await listed(s.room));
    assert.deepEqual(markersOf(await feedOf(s.otherRoom)), await listed(s.otherRoom));
    assert.equal((await feedOf(s.otherRoom)).count, 1);
  });

  test("follows the room's markers as they are created, moved, recoloured and deleted", async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    assert.deepEqual(await feedOf(roomId), {
      count: 0,
      ids: [],
      latitudes: [],
      longitudes: [],
      colors: [],
      palette: [],
      icons: [],
      iconIds: [],
      iconSizes: [],
    });
    const a = await createMarker(roomId, s.users.owner.token, { latitude: 10, longitude: 20, color: '#111111' });
    const b = await createMarker(roomId, s.users.owner.token, { latitude: 11, longitude: 21, color: '#222222' });
    assertOk(
      await patchMarker(roomId, a.id, { latitude: 12.5, longitude: -20.25, color: '#222222' }, s.users.owner.token),
    );
    let feed = await feedOf(roomId);
    assert.deepEqual(markersOf(feed), await listed(roomId));
    assert.deepEqual(feed.latitudes, [12.5, 11]);
    assert.deepEqual(feed.palette, ['#222222'], 'a colour no marker uses any more is not listed');
    assertOk(await deleteMarker(roomId, b.id, s.users.owner.token));
    feed = await feedOf(roomId);
    assert.deepEqual(feed.ids, [a.id]);
    assert.deepEqual(markersOf(feed), await listed(roomId));
    assertOk(await call(s.t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: s.users.owner.token }));
    assert.equal((await feedOf(roomId)).count, 0);
  });

  test('members and read tokens read it; write-only, foreign and strangers do not', async () => {
    const ids = (await feedOf(s.room)).ids;
    for (const auth of [
      s.users.editor.token,
      s.users.viewer.token,
      (await issueToken(s.t.app, s.users.owner, s.room, ['read'])).token,
    ])
      assert.deepEqual((await feedOf(s.room, auth)).ids, ids);
    const writeOnly = await issueToken(s.t.app, s.users.owner, s.room, ['write']);
    const feed = (auth?: string) => call(s.t.app, 'GET', `/api/rooms/${s.room}/markers/feed`, { auth });
    assertError(await feed(writeOnly.token), 403, 'forbidden', TOKEN_ERRORS.lacksRead);
    const foreign = await issueToken(s.t.app, s.users.owner, s.otherRoom, ['read']);
    assertError(await feed(foreign.token), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    assertError(await feed(s.users.stranger.token), 403, 'forbidden');
    assertError(await feed(), 401, 'unauthorized');
  });

  test("anyone reads a public room's feed; a public deck does not open the room's feed", async () => {
    const m = await createMarker(s.publicRoom, s.users.owner.token, { latitude: 5, longitude: 6 });
    const anonymous = assertOk(await call(s.t.app, 'GET', `/api/rooms/${s.publicRoom}/markers/feed`));
    assert.deepEqual(anonymous.ids, [m.id]);
    const deckOnly = await createRoom(s.t.app, s.users.owner);
    await createMarker(deckOnly, s.users.owner.token, { latitude: 5, longitude: 6 });
    assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${deckOnly}/presentation/public`, {
        auth: s.users.owner.token,
        body: { isPublic: true },
      }),
    );
    assertError(await call(s.t.app, 'GET', `/api/rooms/${deckOnly}/markers/feed`), 401, 'unauthorized');
  });

  test('a room that does not exist is 404', async () => {
    assertError(
      await call(s.t.app, 'GET', '/api/rooms/nosuchroom/markers/feed', { auth: s.users.owner.token }),
      404,
      'not_found',
    );
  });
});
