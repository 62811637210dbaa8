import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COLORMAP_NAMES, colormapStops, colormapTable, isColormap } from '../../src/geo/raster/colormaps.js';
import { defaultDisplay, mergeDisplay, resolveDisplay, type RasterFacts } from '../../src/geo/raster/display.js';
import { displayProblems } from '../../src/modules/rasters/raster-display.js';

const singleBand: RasterFacts = { bands: 1, dataType: 'Float32', stats: [{ min: 400, max: 4000, p2: 500, p98: 3800 }] };
const rgb: RasterFacts = {
  bands: 3,
  dataType: 'Byte',
  stats: [0, 1, 2].map(() => ({ min: 0, max: 255, p2: 10, p98: 240 })),
};
const fourBand16: RasterFacts = {
  bands: 4,
  dataType: 'UInt16',
  stats: [0, 1, 2, 3].map((i) => ({ min: 0, max: 4000, p2: 100 * i, p98: 3000 + i })),
};

const hex = (lut: Uint8Array, i: number) =>
  `#${[...lut.subarray(i * 3, i * 3 + 3)].map((c) => c.toString(16).padStart(2, '0')).join('')}`;

test('every colormap of docs/contract-decisions.md exists, with 256 colours, reversible', () => {
  const required = [
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
  for (const name of required) {
    assert.ok(COLORMAP_NAMES.includes(name), name);
    const lut = colormapTable(name)!;
    const reversed = colormapTable(name, true)!;
    assert.equal(lut.length, 768);
    assert.equal(hex(reversed, 0), hex(lut, 255), name);
    assert.equal(hex(reversed, 255), hex(lut, 0), name);
    assert.deepEqual(colormapTable(`${name}_r`), reversed);
    assert.deepEqual(colormapTable(`${name}_r`, true), lut);
  }
  assert.equal(isColormap('nope'), false);
  assert.equal(colormapTable('nope'), null);
  assert.equal(isColormap('VIRIDIS'), false);
});

test("colours are matplotlib's own, as it renders them (float table x 255, truncated)", () => {
  // Entries of matplotlib's _cm_listed.py and _cm.py (3.6).
  const truncated = (rgbFloats: number[]) =>
    `#${rgbFloats
      .map((c) =>
        Math.floor(c * 255)
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')}`;
  const viridis = colormapTable('viridis')!;
  assert.equal(hex(viridis, 0), truncated([0.267004, 0.004874, 0.329415]));
  assert.equal(hex(viridis, 128), truncated([0.127568, 0.566949, 0.550556]));
  assert.equal(hex(viridis, 255), truncated([0.993248, 0.906157, 0.143936]));
  // terrain starts at (0.2, 0.2, 0.6) and ends white; gray at 0 is black.
  assert.equal(hex(colormapTable('terrain')!, 0), '#333399');
  assert.equal(hex(colormapTable('terrain')!, 255), '#ffffff');
  assert.equal(hex(colormapTable('gray')!, 0), '#000000');
  assert.deepEqual(colormapStops('viridis', 3), ['#440154', '#20908c', '#fde724']);
});

test('a valid display has no problems; each rule names its field', () => {
  assert.deepEqual(
    displayProblems(
      {
        colormap: 'terrain',
        band: 1,
        vmin: 0,
        vmax: 10,
        opacity: 0.5,
        reverse: true,
        resampling: 'bilinear',
        nodata: -1,
      },
      singleBand,
    ),
    [],
  );
  assert.deepEqual(
    displayProblems({ renderMode: 'rgb', rgbBands: [3, 2, 1], rgbMin: [0, 5, 10], rgbMax: 200 }, rgb),
    [],
  );
  assert.deepEqual(displayProblems({ vmin: null, vmax: null, nodata: null, rgbMin: null }, singleBand), []);
  const cases: [unknown, RasterFacts, string, RegExp][] = [
    [{ band: 2 }, singleBand, 'band', /has 1 band, no band 2/],
    [{ band: 0 }, singleBand, 'band', /band number from 1/],
    [{ band: 1.5 }, singleBand, 'band', /band number/],
    [{ colormap: 'rainbowish' }, singleBand, 'colormap', /unknown colormap "rainbowish"/],
    [{ colormap: 7 }, singleBand, 'colormap', /colormap name/],
    [{ vmin: 10, vmax: 10 }, singleBand, 'vmin', /below vmax/],
    [{ vmin: 11, vmax: 10 }, singleBand, 'vmin', /below vmax/],
    [{ vmin: '1' }, singleBand, 'vmin', /a number/],
    [{ opacity: 1.5 }, singleBand, 'opacity', /from 0 to 1/],
    [{ opacity: -0.1 }, singleBand, 'opacity', /from 0 to 1/],
    [{ rgbBands: [1, 2] }, rgb, 'rgbBands', /three band numbers/],
    [{ rgbBands: [1, 2, 3, 1] }, rgb, 'rgbBands', /three band numbers/],
    [{ rgbBands: [1, 2, 4] }, rgb, 'rgbBands', /no band 4/],
    [{ renderMode: 'rgb' }, singleBand, 'renderMode', /needs three bands/],
    [{ renderMode: 'hsv' }, rgb, 'renderMode', /"single".*"rgb"/],
    [{ resampling: 'cubic' }, rgb, 'resampling', /"nearest" or "bilinear"/],
    [{ reverse: 'yes' }, rgb, 'reverse', /true or false/],
    [{ rgbMin: [0, 0] }, rgb, 'rgbMin', /three numbers/],
    [{ rgbMin: [0, 200, 0], rgbMax: [255, 100, 255] }, rgb, 'rgbMin', /below the rgbMax/],
    [{ nodata: 'none' }, rgb, 'nodata', /a number/],
    [{ colour: 'red' }, rgb, 'colour', /unknown display key "colour"/],
    [{ toString: 'x' }, rgb, 'toString', /unknown display key "toString"/],
    [JSON.parse('{"__proto__": 1}'), rgb, '__proto__', /unknown display key "__proto__"/],
    [[1, 2], rgb, 'display', /JSON object/],
    [null, rgb, 'display', /JSON object/],
  ];
  for (const [display, raster, field, message] of cases) {
    const problems = displayProblems(display, raster);
    assert.equal(problems.length, 1, JSON.stringify({ display, problems }));
    assert.equal(problems[0].field, field, JSON.stringify(display));
    assert.match(problems[0].message, message, JSON.stringify(display));
  }
});

test('default display: 8-bit RGB composite, otherwise band 1 through viridis on the 2-98 % stretch', () => {
  assert.deepEqual(defaultDisplay(rgb), {
    renderMode: 'rgb',
    rgbBands: [1, 2, 3],
    rgbMin: [0, 0, 0],
    rgbMax: [255, 255, 255],
    opacity: 1,
    resampling: 'bilinear',
    nodata: null,
  });
  assert.deepEqual(defaultDisplay(singleBand), {
    renderMode: 'single',
    band: 1,
    colormap: 'viridis',
    reverse: false,
    vmin: 500,
    vmax: 3800,
    opacity: 1,
    resampling: 'nearest',
    nodata: null,
  });
  assert.equal(defaultDisplay(fourBand16).renderMode, 'single', 'more than 8 bits: single band');
  const constant = defaultDisplay({ bands: 1, dataType: 'Int16', stats: [{ min: 7, max: 7, p2: 7, p98: 7 }] });
  assert.deepEqual([constant.vmin, constant.vmax], [6.5, 7.5]);
  const empty = defaultDisplay({ bands: 1, dataType: 'Float32', stats: [{ min: null, max: null }] });
  assert.deepEqual([empty.vmin, empty.vmax], [0, 1]);
  for (const raster of [rgb, singleBand, fourBand16])
    assert.deepEqual(displayProblems(defaultDisplay(raster), raster), []);
});

test('merge and resolve: null means automatic, per-band stretch, opacity as alpha', () => {
  const stored = defaultDisplay(singleBand);
  const merged = mergeDisplay(stored, { vmin: null, colormap: 'terrain', opacity: 0.5 });
  assert.equal(merged.vmin, null);
  assert.equal(merged.vmax, 3800);
  const resolved = resolveDisplay(merged, singleBand);
  assert.deepEqual(resolved, {
    mode: 'single',
    bands: [0],
    low: [500],
    high: [3800],
    colormap: 'terrain',
    reverse: false,
    alpha: 128,
    bilinear: false,
    nodata: null,
  });

  const rgb16 = resolveDisplay(
    { renderMode: 'rgb', rgbBands: [4, 3, 2], rgbMax: [1000, null as never, 3000].map((v) => v ?? 2000) },
    fourBand16,
  );
  assert.deepEqual(rgb16.bands, [3, 2, 1]);
  assert.deepEqual(rgb16.low, [300, 200, 100], 'automatic low end: each band its own 2nd percentile');
  assert.deepEqual(rgb16.high, [1000, 2000, 3000]);
  assert.deepEqual(resolveDisplay({ renderMode: 'rgb', rgbMin: 10 }, rgb).low, [10, 10, 10]);
  assert.deepEqual(
    resolveDisplay({ renderMode: 'rgb' }, rgb).high,
    [255, 255, 255],
    '8-bit RGB is not stretched by default',
  );
  assert.equal(resolveDisplay({ resampling: 'bilinear', nodata: 0 }, singleBand).bilinear, true);
});
