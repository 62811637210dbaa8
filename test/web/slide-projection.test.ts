/**
 * Where a flat view puts places and tiles on the screen (web/src/map/slide-projection.ts), as
 * MapLibre's camera does: what the deck's first-slide preview draws with before MapLibre has
 * loaded. The browser test compares the preview with the map itself.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { projection } from '../../web/src/map/slide-projection.js';
import { viewTiles } from '../../web/src/map/view-tiles.js';

const close = (actual: number[], expected: number[], message?: string) =>
  assert.ok(
    actual.every((v, i) => Math.abs(v - expected[i]!) < 1e-6),
    `${message ?? ''} ${actual} against ${expected}`,
  );

/** A tile's point (u, v) in its own units through the canvas transform. */
const through = ([a, b, c, d, e, f]: number[], u: number, v: number) => [a! * u + c! * v + e!, b! * u + d! * v + f!];

test("the view's centre is the screen's; a world px is a screen px at the view's zoom", () => {
  const view = projection({ lng: 7.44, lat: 46.95, zoom: 12.5 }, 800, 600);
  close(view.project(7.44, 46.95), [400, 300]);
  assert.equal(view.worldSize, 512 * 2 ** 12.5);
  // 1/512 of the world east is one px at zoom 0: at 12.5, 2^12.5 px.
  const [x, y] = view.project(7.44 + 360 / 512 / 2 ** 12.5, 46.95);
  close([x - 400, y - 300], [1, 0]);
});

test('north is up without a bearing; with a bearing of 90 the screen faces east', () => {
  const flat = projection({ lng: 0, lat: 0, zoom: 3 }, 200, 200);
  assert.ok(flat.project(0, 10)[1] < 100, 'north above the centre');
  assert.ok(flat.project(10, 0)[0] > 100, 'east right of it');
  const turned = projection({ lng: 0, lat: 0, zoom: 3, bearing: 90 }, 200, 200);
  const east = turned.project(10, 0);
  assert.ok(Math.abs(east[0] - 100) < 1e-6 && east[1] < 100, `east above the centre: ${east}`);
  const north = turned.project(0, 10);
  assert.ok(north[0] < 100 && Math.abs(north[1] - 100) < 1e-6, `north to its left: ${north}`);
});

test("a tile's corners land where their places do, turned, and in the world's copies", () => {
  const z = 14;
  const n = 2 ** z;
  const place = (x: number, y: number) => [
    (x / n) * 360 - 180,
    (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI,
  ];
  for (const bearing of [0, 30, -120]) {
    const view = projection({ lng: 7.44, lat: 46.95, zoom: 14.3, bearing }, 1280, 800);
    const [tile] = viewTiles({ lng: 7.44, lat: 46.95, zoom: 14.3 }, 1, 1, { maxzoom: 16 });
    const matrix = view.tile(z, tile!.x, tile!.y, 4096);
    for (const [u, v] of [
      [0, 0],
      [4096, 0],
      [0, 4096],
      [4096, 4096],
    ]) {
      const [lng, lat] = place(tile!.x + u! / 4096, tile!.y + v! / 4096);
      close(through(matrix, u!, v!), view.project(lng!, lat!), `bearing ${bearing}, corner ${u},${v}:`);
    }
  }
  // The copy of a column one world to the east lies one world width further right.
  const view = projection({ lng: 179.9, lat: 0, zoom: 2 }, 1000, 500);
  const [, , , , e0] = view.tile(2, 0, 1, 4096);
  const [, , , , e4] = view.tile(2, 4, 1, 4096);
  assert.equal(e4! - e0!, view.worldSize);
});

test('raster tiles (256 px) are cut at the zoom above, rounded, within their maxzoom', () => {
  const view = { lng: 7.44, lat: 46.95, zoom: 14.6 };
  const zooms = (range: Parameters<typeof viewTiles>[3]) => new Set(viewTiles(view, 400, 300, range).map((t) => t.z));
  assert.deepEqual(zooms({ maxzoom: 22, tileSize: 256, roundZoom: true }), new Set([16]), 'round(14.6 + 1)');
  assert.deepEqual(zooms({ maxzoom: 22 }), new Set([14]), 'vector tiles: the zoom rounded down');
  assert.deepEqual(zooms({ maxzoom: 15, tileSize: 256, roundZoom: true }), new Set([15]), 'no deeper than the maxzoom');
});
