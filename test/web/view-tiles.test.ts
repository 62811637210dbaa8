/**
 * The tiles a view covers (web/src/map/view-tiles.ts), as the deck's first slide asks for them
 * before MapLibre has loaded: the view's zoom rounded down within the source's maxzoom, turned
 * by the bearing, cut to the source's bounds, wrapped across the antimeridian; none when pitched.
 * The browser test checks the same tiles against MapLibre's own requests.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type TileView, viewTiles } from '../../web/src/map/view-tiles.js';

/** The view centred on the point (x, y) in tile units at zoom z. */
function at(x: number, y: number, z: number, zoom = z, extra: Partial<TileView> = {}): TileView {
  const n = 2 ** z;
  const lng = (x / n) * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI;
  return { lat, lng, zoom, ...extra };
}

const names = (tiles: { z: number; x: number; y: number }[]) => tiles.map((t) => `${t.z}/${t.x}/${t.y}`).sort();

test('a view on the corner of four tiles, one tile wide each way, covers those four', () => {
  assert.deepEqual(names(viewTiles(at(500, 300, 10), 1024, 1024, { maxzoom: 16 })), [
    '10/499/299',
    '10/499/300',
    '10/500/299',
    '10/500/300',
  ]);
});

test('a fractional zoom is cut at the zoom below, its tiles drawn larger', () => {
  // At 10.5 a zoom-10 tile is 724 px: 1024 px still reach only the four around the corner.
  assert.equal(viewTiles(at(500, 300, 10, 10.5), 1024, 1024, { maxzoom: 16 }).length, 4);
  // A view inside one tile covers it alone.
  assert.deepEqual(names(viewTiles(at(500.5, 300.5, 10, 10.9), 400, 300, { maxzoom: 16 })), ['10/500/300']);
});

test('a turned view reaches the tiles its corners reach', () => {
  const centre = at(500.5, 300.5, 10);
  assert.equal(viewTiles(centre, 500, 500, { maxzoom: 16 }).length, 1);
  // Turned by 45°, it reaches the four tiles beside it, not those at its corners (MapLibre asks for these five).
  assert.deepEqual(names(viewTiles({ ...centre, bearing: 45 }, 500, 500, { maxzoom: 16 })), [
    '10/499/300',
    '10/500/299',
    '10/500/300',
    '10/500/301',
    '10/501/300',
  ]);
});

test("above the source's maxzoom, its highest tiles are asked for", () => {
  const tiles = viewTiles(at(4000.5625, 3000.5625, 13, 18), 1280, 800, { maxzoom: 16 });
  assert.ok(tiles.length > 0 && tiles.every((t) => t.z === 16), names(tiles).join());
  // At zoom 18 a zoom-16 tile is 2048 px: a 1280 px view in the middle of one covers it alone.
  assert.deepEqual(names(tiles), ['16/32004/24004']);
});

test("the source's bounds cut the tiles asked for", () => {
  const view = at(500, 300, 10);
  const [west, north] = [(500 / 1024) * 360 - 180 + 0.01, at(500, 300, 10).lat - 0.01];
  const bounds = [west, north - 0.1, west + 0.1, north];
  assert.deepEqual(names(viewTiles(view, 1024, 1024, { maxzoom: 16, bounds })), ['10/500/300']);
});

test("a bound on a tile's border leaves out the tile beyond it, as MapLibre does", () => {
  const edge = (500 / 1024) * 360 - 180; // the border between tiles 499 and 500 at zoom 10
  const view = at(500, 300, 10);
  assert.deepEqual(names(viewTiles(view, 1024, 1024, { maxzoom: 16, bounds: [edge - 1, 0, edge, 80] })), [
    '10/499/299',
    '10/499/300',
  ]);
  assert.deepEqual(names(viewTiles(view, 1024, 1024, { maxzoom: 16, bounds: [edge, 0, edge + 1, 80] })), [
    '10/500/299',
    '10/500/300',
  ]);
});

test('across the antimeridian, tiles wrap to their world and come once', () => {
  const tiles = viewTiles({ lat: 0, lng: 180, zoom: 1 }, 4096, 512, { maxzoom: 16 });
  assert.deepEqual(names(tiles), ['1/0/0', '1/0/1', '1/1/0', '1/1/1']);
});

test('a pitched view asks for none (its horizon reaches other zooms)', () => {
  assert.deepEqual(viewTiles(at(500, 300, 10, 10, { pitch: 30 }), 1024, 1024, { maxzoom: 16 }), []);
});
