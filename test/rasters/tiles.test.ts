/**
 * Rendered raster tiles over HTTP: rasters in Swiss LV95 and WGS84 placed where GDAL puts them
 * (a tile over a known pixel has that pixel's colour), colours as matplotlib gives them, every
 * display rule (band, stretch, colormap and its reversal, opacity, nodata, resampling, RGB bands
 * and per-band stretch), transparency outside the data and at nodata, empty tiles, ETags.
 * Contract: docs/contract-decisions.md ("Layers and rasters": rendered raster tiles), docs/decisions.md (Raster layers).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { assertError, assertOk, call, scaffoldSuite } from '../helpers.js';
import { decodeTile, tileAt, where } from '../raster-fixtures.js';
import {
  cellCentre,
  colourOverPixel,
  fetchTile,
  makeUploadFixtures,
  mplColours,
  newRaster,
  patchDisplay,
  type RasterLayer,
  tilePath,
} from '../support/rasters.js';

let fixtures: ReturnType<typeof makeUploadFixtures>;

const s = scaffoldSuite({}, async () => {
  fixtures = makeUploadFixtures();
});
after(async () => {
  fixtures?.remove();
});

const owner = () => s.users.owner.token;
/** The colour over the centre of a fixture cell (4 x 4 source pixels of one value) at zoom z. */
const cellColour = (layer: RasterLayer, file: string, z: number, cellCol: number, cellRow: number) =>
  colourOverPixel(s.t.app, s.room, layer.id, fixtures.file(file), z, ...cellCentre(cellCol, cellRow), owner());
const restyle = async (layer: RasterLayer, display: object) =>
  assertOk(await patchDisplay(s.t.app, s.room, layer.id, display, owner())).rasterLayer as RasterLayer;

describe('placement and colours', () => {
  test("Swiss LV95: the tile over a cell has its value's colour in viridis, as matplotlib computes it", async () => {
    const layer = await newRaster(s.t.app, s.room, owner(), fixtures.file('grid-2056.tif'), {
      colormap: 'viridis',
      vmin: 0,
      vmax: 80,
    });
    const cells: [number, number][] = [
      [0, 0],
      [9, 0],
      [3, 4],
      [7, 5],
      [9, 7],
    ];
    const expected = mplColours(
      'viridis',
      0,
      80,
      cells.map(([c, r]) => r * 10 + c),
    );
    for (const z of [layer.maxZoom, layer.maxZoom + 2]) {
      for (const [i, [c, r]] of cells.entries())
        assert.deepEqual(await cellColour(layer, 'grid-2056.tif', z, c, r), expected[i], `cell ${c},${r} at z${z}`);
    }
  });

  test('WGS84, two bands: band 1 and band 2 each where GDAL puts them', async () => {
    const layer = await newRaster(s.t.app, s.room, owner(), fixtures.file('grid-4326.tif'), {
      colormap: 'viridis',
      vmin: 0,
      vmax: 120,
    });
    const cells: [number, number][] = [
      [0, 0],
      [11, 0],
      [5, 5],
      [11, 9],
    ];
    const expected = mplColours(
      'viridis',
      0,
      120,
      cells.map(([c, r]) => r * 12 + c),
    );
    for (const [i, [c, r]] of cells.entries())
      assert.deepEqual(
        await cellColour(layer, 'grid-4326.tif', layer.maxZoom + 1, c, r),
        expected[i],
        `cell ${c},${r}`,
      );
    await restyle(layer, { band: 2, vmin: 1000, vmax: 1120, colormap: 'plasma' });
    const second = mplColours(
      'plasma',
      1000,
      1120,
      cells.map(([c, r]) => 1000 + r * 12 + c),
    );
    for (const [i, [c, r]] of cells.entries())
      assert.deepEqual(
        await cellColour(layer, 'grid-4326.tif', layer.maxZoom + 1, c, r),
        second[i],
        `band 2, cell ${c},${r}`,
      );
  });

  test('stretch, colormaps, reversal and opacity', async () => {
    const layer = await newRaster(s.t.app, s.room, owner(), fixtures.file('grid-2056.tif'), {
      colormap: 'terrain',
      vmin: 20,
      vmax: 40,
    });
    const z = layer.maxZoom;
    const values = [10, 30, 37, 50]; // below, inside, inside, above the stretch
    const at = (value: number) => cellColour(layer, 'grid-2056.tif', z, value % 10, Math.floor(value / 10));
    const check = async (name: string, alpha = 255) => {
      const expected = mplColours(name, 20, 40, values);
      for (const [i, value] of values.entries())
        assert.deepEqual(await at(value), [...expected[i]!.slice(0, 3), alpha], `${name} at ${value}`);
    };
    await check('terrain');
    await restyle(layer, { colormap: 'terrain_r' });
    await check('terrain_r');
    await restyle(layer, { colormap: 'coolwarm', reverse: true });
    await check('coolwarm_r');
    await restyle(layer, { reverse: false, opacity: 0.5 });
    await check('coolwarm', 128);
    await restyle(layer, { opacity: 0 });
    const { res, tile } = await fetchTile(s.t.app, s.room, layer.id, z, ...tileXY(layer, z), owner());
    assert.equal(res.headers['x-tile-empty'], '1');
    assert.equal(tile.at(128, 128)[3], 0);
  });
});

/** x, y of the tile of zoom z over the middle of the layer. */
function tileXY(layer: RasterLayer, z: number): [number, number] {
  const { x, y } = tileAt((layer.bbox[0]! + layer.bbox[2]!) / 2, (layer.bbox[1]! + layer.bbox[3]!) / 2, z);
  return [x, y];
}

describe('transparency', () => {
  test('nodata of the file and of the display, and everything outside the data, are transparent', async () => {
    const layer = await newRaster(s.t.app, s.room, owner(), fixtures.file('grid-2056.tif'), { vmin: 0, vmax: 80 });
    const z = layer.maxZoom + 1;
    assert.equal((await cellColour(layer, 'grid-2056.tif', z, 5, 2))[3], 0, "cell 25 is the file's nodata");
    assert.equal((await cellColour(layer, 'grid-2056.tif', z, 0, 3))[3], 255, 'cell 30 is drawn');
    await restyle(layer, { nodata: 30 });
    assert.equal((await cellColour(layer, 'grid-2056.tif', z, 0, 3))[3], 0, "cell 30 is the display's nodata");
    assert.equal((await cellColour(layer, 'grid-2056.tif', z, 1, 3))[3], 255, 'cell 31 is drawn');
    // Just outside the raster's corner, in the same tile as its first pixel.
    const [[lon, lat]] = where(fixtures.file('grid-2056.tif'), [[-3, -3]]);
    const { x, y, px, py } = tileAt(lon!, lat!, z);
    assert.equal((await fetchTile(s.t.app, s.room, layer.id, z, x, y, owner())).tile.at(px, py)[3], 0);
  });

  test('a tile with no data is a transparent 256 px PNG marked X-Tile-Empty', async () => {
    const layer = await newRaster(s.t.app, s.room, owner(), fixtures.file('grid-2056.tif'));
    const { res, tile } = await fetchTile(s.t.app, s.room, layer.id, 10, 0, 0, owner());
    assert.equal(res.headers['x-tile-empty'], '1');
    for (const [px, py] of [
      [0, 0],
      [128, 128],
      [255, 255],
    ])
      assert.equal(tile.at(px!, py!)[3], 0);
    assertError(
      await call(s.t.app, 'GET', tilePath(s.room, layer.id, 2, 4, 0), { auth: owner() }),
      400,
      'validation_error',
    );
    assertError(
      await call(s.t.app, 'GET', tilePath(s.room, layer.id, 23, 0, 0), { auth: owner() }),
      400,
      'validation_error',
    );
  });
});

describe('RGB composites and resampling', () => {
  test('bands in any order, each with its own stretch', async () => {
    const layer = await newRaster(s.t.app, s.room, owner(), fixtures.file('rgb-2056.tif'));
    const z = layer.maxZoom + 1;
    // red = 20 x cell column, green = 20 x cell row, blue = 200.
    assert.deepEqual(await cellColour(layer, 'rgb-2056.tif', z, 3, 2), [60, 40, 200, 255]);
    await restyle(layer, { rgbBands: [3, 1, 2] });
    assert.deepEqual(await cellColour(layer, 'rgb-2056.tif', z, 3, 2), [200, 60, 40, 255]);
    await restyle(layer, { rgbBands: [1, 2, 3], rgbMin: 0, rgbMax: [100, 100, 255], opacity: 0.4 });
    assert.deepEqual(await cellColour(layer, 'rgb-2056.tif', z, 3, 2), [153, 102, 200, 102]);
  });

  test('bilinear blends neighbouring cells where nearest keeps them sharp', async () => {
    const layer = await newRaster(s.t.app, s.room, owner(), fixtures.file('rgb-2056.tif'), { resampling: 'nearest' });
    const z = layer.maxZoom + 3;
    const [x, y] = tileXY(layer, z);
    const colours = async () => {
      const tile = await decodeTile(
        (await call(s.t.app, 'GET', tilePath(s.room, layer.id, z, x, y), { auth: owner() })).rawPayload,
      );
      const seen = new Set<string>();
      for (let px = 0; px < 256; px++) seen.add(tile.at(px, 128).join(','));
      return seen.size;
    };
    const sharp = await colours();
    await restyle(layer, { resampling: 'bilinear' });
    const blended = await colours();
    assert.ok(blended > sharp * 3, `bilinear shows blends: ${blended} colours against ${sharp}`);
    assert.deepEqual(
      await cellColour(layer, 'rgb-2056.tif', z, 3, 2),
      [60, 40, 200, 255],
      'the middle of a cell keeps its colour',
    );
  });
});

describe('caching', () => {
  test('the ETag changes with the display; If-None-Match answers 304', async () => {
    const layer = await newRaster(s.t.app, s.room, owner(), fixtures.file('grid-2056.tif'));
    const url = tilePath(s.room, layer.id, layer.maxZoom, ...tileXY(layer, layer.maxZoom));
    const first = await call(s.t.app, 'GET', url, { auth: owner() });
    const etag = first.headers.etag as string;
    assert.ok(etag, 'an ETag');
    assert.equal(first.headers['cache-control'], 'private, no-cache');
    const again = await call(s.t.app, 'GET', url, { auth: owner(), headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    await restyle(layer, { colormap: 'magma' });
    const changed = await call(s.t.app, 'GET', url, { auth: owner(), headers: { 'if-none-match': etag } });
    assert.equal(changed.statusCode, 200);
    assert.notEqual(changed.headers.etag, etag);
    assert.notDeepEqual(changed.rawPayload, first.rawPayload);
  });

  test('tiles of the large raster come from its overviews at low zooms', async () => {
    const layer = await newRaster(s.t.app, s.room, owner(), fixtures.file('big-2056.tif'), { vmin: 0, vmax: 3000 });
    assert.ok(layer.minZoom < layer.maxZoom, `overviews: zooms ${layer.minZoom}..${layer.maxZoom}`);
    const middle: [number, number] = [(layer.bbox[0]! + layer.bbox[2]!) / 2, (layer.bbox[1]! + layer.bbox[3]!) / 2];
    for (const z of [layer.minZoom - 1, layer.minZoom, layer.maxZoom]) {
      const { x, y, px, py } = tileAt(...middle, z);
      const { tile } = await fetchTile(s.t.app, s.room, layer.id, z, x, y, owner());
      assert.equal(tile.at(px, py)[3], 255, `z${z} shows the middle of the raster`);
    }
  });
});

describe('edges', () => {
  /** The tiles over the layer at zoom z, stitched: `at(i, j)` is the RGBA of mosaic pixel (i, j), null off the mosaic. */
  async function mosaic(layer: RasterLayer, z: number) {
    const [west, south, east, north] = layer.bbox as number[];
    const low = tileAt(west!, north!, z);
    const high = tileAt(east!, south!, z);
    const width = (high.x - low.x + 1) * 256;
    const height = (high.y - low.y + 1) * 256;
    const tiles = new Map<string, Awaited<ReturnType<typeof fetchTile>>['tile']>();
    for (let y = low.y; y <= high.y; y++)
      for (let x = low.x; x <= high.x; x++)
        tiles.set(`${x - low.x}/${y - low.y}`, (await fetchTile(s.t.app, s.room, layer.id, z, x, y, owner())).tile);
    const at = (i: number, j: number) =>
      i < 0 || j < 0 || i >= width || j >= height
        ? null
        : tiles.get(`${Math.floor(i / 256)}/${Math.floor(j / 256)}`)!.at(i % 256, j % 256);
    return { width, height, at };
  }

  test('no transparent or dark line along or inside the raster, across tile edges, at and past its own zoom', async () => {
    const layer = await newRaster(s.t.app, s.room, owner(), fixtures.file('rgb-2056.tif'));
    for (const z of [layer.maxZoom, layer.maxZoom + 2]) {
      const { width, height, at } = await mosaic(layer, z);
      let edges = 0;
      for (let j = 0; j < height; j++) {
        // The footprint is convex and has no nodata: the drawn pixels of a row are one run.
        const row = Array.from({ length: width }, (_, i) => at(i, j)![3]);
        const first = row.findIndex((a) => a > 0);
        const last = row.length - 1 - [...row].reverse().findIndex((a) => a > 0);
        if (first < 0) continue;
        assert.ok(
          row.slice(first, last + 1).every((a) => a === 255),
          `z${z} row ${j}: a transparent gap inside the raster`,
        );
        // A map samples tiles linearly without premultiplying: the transparent pixel next to the data
        // must carry the data's colour, else the blend of the two is a dark line along the edge.
        for (const [inside, outside] of [
          [first, first - 1],
          [last, last + 1],
        ] as const) {
          const beside = at(outside, j);
          if (!beside) continue;
          edges++;
          const drawn = at(inside, j)!;
          const blend = [0, 1, 2].reduce((sum, c) => sum + (drawn[c]! + beside[c]!) / 2, 0);
          const brightness = drawn[0]! + drawn[1]! + drawn[2]!;
          assert.ok(blend >= brightness * 0.75, `z${z} row ${j}: the edge blends to ${blend} from ${brightness}`);
        }
      }
      assert.ok(edges > 20, `z${z}: ${edges} edge pixels checked`);
    }
  });
});
