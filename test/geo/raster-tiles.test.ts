import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { geoLimitsOf, loadConfig, rasterCacheSizesOf } from '../../src/config.js';
import { TileableFiles, type TileableSource } from '../../src/geo-engine/raster-reader.js';
import { FileBlobStore } from '../../src/infra/blob-store.js';
import { colormapTable } from '../../src/geo/raster/colormaps.js';
import { resolveDisplay, type RasterDisplay } from '../../src/geo/raster/display.js';
import { ingestRaster, type IngestedRaster } from '../../src/geo-engine/raster-ingest.js';
import { levelForZoom } from '../../src/geo/raster/tile-window.js';
import { RasterTiles } from '../../src/geo-engine/raster-tiles.js';
import { decodeTile, lutColour, makeRasterFixtures, pixelCentre, probe, tileAt, where } from '../raster-fixtures.js';

let fixtures: ReturnType<typeof makeRasterFixtures>;
const rasters: Record<string, IngestedRaster> = {};
const cog = (name: string) => fixtures.file(`${name}.cog.tif`);
/** The tileable file of `name`, read by byte ranges as the rasters service reads it from the blob store. */
const tileable = (name: string): TileableSource => {
  const store = new FileBlobStore(fixtures.dir);
  const key = `${name}.cog.tif`;
  return { key, read: async (offset, length) => (await store.read(key, { start: offset, end: offset + length - 1 }))! };
};
/** The engine under the default settings: limits, and one set of raster caches. */
const GEO = geoLimitsOf(loadConfig({}));
const CACHES = rasterCacheSizesOf(loadConfig({}));
const files = new TileableFiles(CACHES);
const tiles = new RasterTiles(files, CACHES);

before(async () => {
  fixtures = makeRasterFixtures();
  for (const name of ['grid-2056', 'grid-4326', 'rgb-2056', 'int16-2056', 'big-2056']) {
    rasters[name] = await ingestRaster(fixtures.file(`${name}.tif`), cog(name), GEO);
  }
});
after(() => fixtures.remove());

/** The tile (decoded) of `name` at zoom z over the centre of source pixel (col, row), and where that pixel is in it. */
async function tileOverPixel(name: string, z: number, col: number, row: number, display: RasterDisplay) {
  const [[lon, lat]] = where(fixtures.file(`${name}.tif`), [[col, row]]);
  const { x, y, px, py } = tileAt(lon, lat, z);
  const png = await tiles.renderTile(tileable(name), z, x, y, resolveDisplay(display, rasters[name]));
  assert.ok(png, `tile ${z}/${x}/${y} of ${name} is drawn`);
  const tile = await decodeTile(png);
  return { at: () => tile.at(px, py), tile, px, py };
}

/**
 * A tile pixel is the expected colour; a transparent one only needs alpha 0 (transparent
 * pixels next to the data carry its colour, see bleedColours).
 */
function assertPixel(actual: number[], expected: number[], message: string) {
  if (expected[3] === 0) assert.equal(actual[3], 0, message);
  else assert.deepEqual(actual, expected, message);
}

/** A source position in the middle of a 4 x 4 pixel cell (cells of the fixtures share one value). */
const cellCentre = (cellCol: number, cellRow: number): [number, number] => [cellCol * 4 + 2, cellRow * 4 + 2];

/**
 * Placement: pixels of a tile over the raster against GDAL's own answers (PROJ from WGS84,
 * then the pixel) at each pixel centre: exactly the tileable file's pixel there (away from
 * its pixel edges), and the source's pixel (away from cell edges, as the warp resamples).
 */
async function checkPlacement(name: string, z: number, band: number, vmin: number, vmax: number) {
  const raster = rasters[name];
  const { x, y } = tileAt((raster.bbox[0] + raster.bbox[2]) / 2, (raster.bbox[1] + raster.bbox[3]) / 2, z);
  const display = resolveDisplay({ band, colormap: 'viridis', vmin, vmax, resampling: 'nearest' }, raster);
  const tile = await decodeTile((await tiles.renderTile(tileable(name), z, x, y, display))!);
  const pixels: [number, number][] = [];
  for (let py = 4; py < 256; py += 12) for (let px = 4; px < 256; px += 12) pixels.push([px, py]);
  const centres = pixels.map(([px, py]) => pixelCentre(z, x, y, px, py));
  const sourceAnswers = probe(fixtures.file(`${name}.tif`), centres);
  const tileableAnswers = probe(cog(name), centres);
  const lut = colormapTable('viridis')!;
  const colour = (value: number | null) =>
    value === null ? [0, 0, 0, 0] : lutColour(lut, Math.min(255, Math.floor(((value - vmin) / (vmax - vmin)) * 256)));
  let checked = 0;
  let exact = 0;
  let outside = 0;
  const inside = tileableAnswers.filter((answer) => answer.inside).length;
  pixels.forEach(([px, py], i) => {
    const actual = tile.at(px, py);
    const stored = tileableAnswers[i];
    const away = (v: number, margin: number, size: number) => v % size >= margin && v % size <= size - margin;
    if (stored.inside && away(stored.col, 0.02, 1) && away(stored.row, 0.02, 1)) {
      // An alpha band (integers without nodata) follows the data bands.
      const hidden = stored.values.length > raster.bands && stored.values.at(-1) === 0;
      assertPixel(
        actual,
        colour(hidden ? null : stored.values[band - 1]),
        `tileable pixel ${stored.col.toFixed(2)},${stored.row.toFixed(2)} at tile pixel ${px},${py}`,
      );
      exact++;
    }
    const { col, row, values } = sourceAnswers[i];
    if (col < -1 || row < -1 || col > raster.width + 1 || row > raster.height + 1) {
      outside++;
      return assert.equal(actual[3], 0, `outside the raster at ${px},${py}`);
    }
    if (col < 0 || row < 0 || !away(col, 0.75, 4) || !away(row, 0.75, 4)) return;
    assertPixel(
      actual,
      colour(values[band - 1]),
      `pixel ${px},${py}: source ${col.toFixed(2)},${row.toFixed(2)} = ${values[band - 1]}`,
    );
    checked++;
  });
  assert.ok(exact > inside * 0.5, `${exact} of ${inside} against the tileable file`);
  return { checked, outside };
}

test('placement in Swiss LV95: tile pixels have the colour of the source pixel GDAL finds there', async () => {
  const { checked } = await checkPlacement('grid-2056', 14, 1, 0, 80);
  assert.ok(checked > 100, `${checked} pixels checked`);
  const edges = await checkPlacement('grid-2056', 12, 1, 0, 80);
  assert.ok(edges.checked > 10 && edges.outside > 10, JSON.stringify(edges));
});

test('placement in WGS84, band 2', async () => {
  const { checked } = await checkPlacement('grid-4326', 14, 2, 1000, 1120);
  assert.ok(checked > 100, `${checked} pixels checked`);
});

test('a colormap pixel at a known value: 40 on a 0..80 stretch is viridis step 128, as matplotlib draws it', async () => {
  const display: RasterDisplay = { colormap: 'viridis', vmin: 0, vmax: 80 };
  const { at } = await tileOverPixel('grid-2056', 15, ...cellCentre(0, 4), display); // cell 40
  // matplotlib 3.6: viridis(0.5) = (0.127568, 0.566949, 0.550556) -> bytes (32, 144, 140).
  assert.deepEqual(at(), [32, 144, 140, 255]);
  const reversed = await tileOverPixel('grid-2056', 15, ...cellCentre(0, 4), { ...display, colormap: 'viridis_r' });
  assert.deepEqual(reversed.at(), lutColour(colormapTable('viridis')!, 127));
  const flag = await tileOverPixel('grid-2056', 15, ...cellCentre(0, 4), { ...display, reverse: true });
  assert.deepEqual(flag.at(), reversed.at());
});

test('stretch, opacity, band and nodata rules', async () => {
  const lut = colormapTable('terrain')!;
  const over = (display: RasterDisplay, cell: [number, number] = [0, 4]) =>
    tileOverPixel('grid-2056', 15, ...cellCentre(...cell), { colormap: 'terrain', ...display }).then((t) => t.at());
  assert.deepEqual(await over({ vmin: 50, vmax: 60 }), lutColour(lut, 0), 'below vmin: first colour');
  assert.deepEqual(await over({ vmin: 0, vmax: 20 }), lutColour(lut, 255), 'above vmax: last colour');
  assert.deepEqual(await over({ vmin: 0, vmax: 80, opacity: 0.5 }), lutColour(lut, 128, 128));
  assert.deepEqual(await over({ vmin: 0, vmax: 80, nodata: 40 }), [0, 0, 0, 0], "the display's nodata is transparent");
  assert.deepEqual(
    await over({ vmin: 0, vmax: 80 }, [5, 2]),
    [0, 0, 0, 0],
    "the file's nodata (cell 25) is transparent",
  );
  assert.deepEqual(
    await over({ vmin: 0, vmax: 80 }, [4, 2]),
    lutColour(lut, Math.floor((24 / 80) * 256)),
    'cell 24 beside it is drawn',
  );
  const band2 = await tileOverPixel('grid-4326', 15, ...cellCentre(3, 2), {
    band: 2,
    colormap: 'terrain',
    vmin: 1000,
    vmax: 1120,
  });
  assert.deepEqual(band2.at(), lutColour(lut, Math.floor((27 / 120) * 256)), 'band 2 of cell 27 is 1027');
  assert.equal(
    await tiles.renderTile(tileable('grid-2056'), 15, 0, 0, resolveDisplay({}, rasters['grid-2056'])),
    null,
    'a tile away from the data',
  );
  assert.equal(
    await tiles.renderTile(tileable('grid-2056'), 5, 99, 0, resolveDisplay({}, rasters['grid-2056'])),
    null,
    'a tile beyond the world',
  );
  const { x, y } = tileAt(...where(fixtures.file('grid-2056.tif'), [[2, 2]])[0], 12);
  assert.equal(
    await tiles.renderTile(tileable('grid-2056'), 12, x, y, resolveDisplay({ opacity: 0 }, rasters['grid-2056'])),
    null,
    'opacity 0 draws nothing',
  );
});

test('nearest keeps cells sharp, bilinear blends across their edges', async () => {
  const distinct = async (resampling: 'nearest' | 'bilinear') => {
    const { tile, py } = await tileOverPixel('grid-2056', 17, 4, 18, {
      colormap: 'gray',
      vmin: 40,
      vmax: 41,
      resampling,
    });
    return new Set(Array.from({ length: 256 }, (_, px) => tile.at(px, py).join())).size;
  };
  assert.ok((await distinct('nearest')) <= 2);
  assert.ok((await distinct('bilinear')) > 10);
});

test('RGB composites: bands in any order, stretched per band', async () => {
  // Cell (3, 5): red 60, green 100, blue 200.
  const at = (display: RasterDisplay) =>
    tileOverPixel('rgb-2056', 15, ...cellCentre(3, 5), { renderMode: 'rgb', resampling: 'nearest', ...display }).then(
      (t) => t.at(),
    );
  assert.deepEqual(await at({}), [60, 100, 200, 255]);
  assert.deepEqual(await at({ rgbBands: [3, 2, 1] }), [200, 100, 60, 255]);
  assert.deepEqual(await at({ rgbMin: [0, 100, 0], rgbMax: [120, 200, 255], opacity: 0.2 }), [128, 0, 200, 51]);
  assert.deepEqual(await at({ rgbMin: 50, rgbMax: 70 }), [128, 255, 255, 255]);
});

test('integers without nodata: placed, and transparent around the data (alpha band)', async () => {
  const { checked, outside } = await checkPlacement('int16-2056', 12, 1, -300, 500);
  assert.ok(checked > 10 && outside > 10, JSON.stringify({ checked, outside }));
});

test('the point query answers the source values, null at nodata and outside', async () => {
  const at = async (name: string, col: number, row: number) =>
    tiles.valuesAt(tileable(name), ...where(fixtures.file(`${name}.tif`), [[col, row]])[0]);
  assert.deepEqual(await at('grid-2056', ...cellCentre(0, 4)), [40]);
  assert.deepEqual(await at('grid-2056', ...cellCentre(5, 2)), [null]);
  assert.deepEqual(await at('grid-4326', ...cellCentre(3, 2)), [27, 1027]);
  assert.deepEqual(await at('rgb-2056', ...cellCentre(3, 5)), [60, 100, 200]);
  assert.deepEqual(await at('int16-2056', ...cellCentre(2, 1)), [12 * 10 - 300]);
  assert.deepEqual(await tiles.valuesAt(tileable('int16-2056'), 7.3, 46.93), [null], 'outside, inside the alpha band');
  assert.deepEqual(await tiles.valuesAt(tileable('grid-4326'), 0, 0), [null, null]);
  assert.deepEqual(await tiles.valuesAt(tileable('grid-4326'), 7, 89), [null, null], 'beyond Web Mercator');
  assert.deepEqual(
    await tiles.valuesAt(tileable('grid-2056'), ...where(fixtures.file('grid-2056.tif'), [cellCentre(0, 4)])[0], 40),
    [null],
    'extra nodata',
  );
});

test('a tile reads only the blocks it covers, from the level that fits its zoom', async () => {
  const big = await files.open(tileable('big-2056'));
  assert.ok(big.levels.length >= 4, `${big.levels.length} levels`);
  const raster = rasters['big-2056'];
  const [lon, lat] = [(raster.bbox[0] + raster.bbox[2]) / 2, (raster.bbox[1] + raster.bbox[3]) / 2];
  const block = 256 * 256 * 4;
  const blocksFor = async (z: number) => {
    // Empty caches each time: a fresh set of opened files (and a renderer without cached tiles).
    const fresh = new TileableFiles({ ...CACHES, blockCacheBytes: 64 * 2 ** 20 });
    const { x, y } = tileAt(lon, lat, z);
    assert.ok(
      await new RasterTiles(fresh, CACHES).renderTile(
        tileable('big-2056'),
        z,
        x,
        y,
        resolveDisplay({ colormap: 'magma' }, raster),
      ),
    );
    return fresh.cachedBytes / block;
  };
  // The grid is aligned: at the full resolution's zoom and the next two, a tile is one block.
  for (const k of [0, 1, 2]) {
    assert.equal(levelForZoom(big, raster.maxZoom - k), k);
    assert.equal(await blocksFor(raster.maxZoom - k), 1, `zoom ${raster.maxZoom - k}`);
  }
  assert.equal(levelForZoom(big, raster.maxZoom - 3), 3);
  assert.ok((await blocksFor(raster.maxZoom - 3)) <= 4);
  assert.equal(await blocksFor(raster.maxZoom + 3), 1, 'zoomed in past the full resolution: part of one block');
  const fullBlocks = Math.ceil(big.levels[0].width / 256) * Math.ceil(big.levels[0].height / 256);
  assert.ok(fullBlocks >= 25, `${fullBlocks} blocks at full resolution`);
  // The full-resolution value of a pixel is the source's (nearest-neighbour warp).
  assert.deepEqual(
    await tiles.valuesAt(tileable('big-2056'), ...where(fixtures.file('big-2056.tif'), [[700.5, 300.5]])[0]),
    [1000],
  );
});
