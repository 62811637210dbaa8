import assert from 'node:assert/strict';
import { geoLimitsOf, loadConfig } from '../../src/config.js';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { GdalError } from '../../src/geo-engine/gdal-process.js';
import { ingestRaster, progressParser, warpArguments } from '../../src/geo-engine/raster-ingest.js';
import { RasterRejected, type RasterInfo } from '../../src/geo/raster/raster-info.js';
import { makeRasterFixtures } from '../raster-fixtures.js';

/** The geo engine's limits under the default settings. */
const GEO = geoLimitsOf(loadConfig({}));

let fixtures: ReturnType<typeof makeRasterFixtures>;
before(() => {
  fixtures = makeRasterFixtures();
});
after(() => fixtures.remove());

/** Names of this process's children still running (GDAL tools left behind would show here). */
function runningChildren(): string[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .flatMap((pid) => {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        return status.includes(`\nPPid:\t${process.pid}\n`) ? [/Name:\t(.*)/.exec(status)![1]] : [];
      } catch {
        return [];
      }
    });
}

/** GDAL's own description of a file: size, CRS code, extent in WGS84, band statistics. */
function gdalinfo(file: string, ...args: string[]) {
  return JSON.parse(
    execFileSync('gdalinfo', ['-json', ...args, file], {
      encoding: 'utf8',
      env: { ...process.env, GDAL_PAM_ENABLED: 'NO' },
    }),
  );
}

test('a Float32 GeoTIFF in Swiss LV95: facts, statistics, tileable file and default display', async () => {
  const progress: number[] = [];
  const out = fixtures.file('grid-2056.cog.tif');
  const raster = await ingestRaster(fixtures.file('grid-2056.tif'), out, GEO, { onProgress: (f) => progress.push(f) });
  assert.equal(raster.width, 40);
  assert.equal(raster.height, 32);
  assert.equal(raster.bands, 1);
  assert.equal(raster.dataType, 'Float32');
  assert.equal(raster.nodata, -9999);
  assert.equal(raster.sourceCrs, 'EPSG:2056');
  assert.equal(raster.crsAssumed, false);

  // The bbox is that of the source's corners as GDAL puts them in WGS84.
  const corners: number[][] = gdalinfo(fixtures.file('grid-2056.tif')).wgs84Extent.coordinates[0];
  const lons = corners.map((c) => c[0]);
  const lats = corners.map((c) => c[1]);
  assert.deepEqual(raster.bbox, [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)]);

  // Statistics of the original pixels, as GDAL computes them (cell 25 is nodata).
  const band = gdalinfo(fixtures.file('grid-2056.tif'), '-stats').bands[0].metadata[''];
  const [stats] = raster.stats;
  assert.equal(stats.min, 0);
  assert.equal(stats.max, 79);
  assert.equal(stats.mean, Number(band.STATISTICS_MEAN));
  assert.ok(stats.p2! >= 0 && stats.p2! < 3 && stats.p98! > 76 && stats.p98! <= 79, `${stats.p2} ${stats.p98}`);
  assert.deepEqual(raster.display, {
    renderMode: 'single',
    band: 1,
    colormap: 'viridis',
    reverse: false,
    vmin: stats.p2,
    vmax: stats.p98,
    opacity: 1,
    resampling: 'nearest',
    nodata: null,
  });

  // The tileable file: EPSG:3857, DEFLATE, 256 px tiles.
  const cog = gdalinfo(out);
  assert.equal(cog.stac['proj:epsg'], 3857);
  assert.equal(cog.metadata.IMAGE_STRUCTURE.COMPRESSION, 'DEFLATE');
  assert.deepEqual(cog.bands[0].block, [256, 256]);
  assert.equal(raster.sizeBytes > 0, true);
  assert.equal(raster.maxZoom, 10, '100 m pixels at 47 degrees north: about 146 m in Web Mercator, zoom 10');
  // A file this small may report everything in one chunk.
  assert.ok(progress.at(-1) === 1 && progress.every((p, i) => i === 0 || p >= progress[i - 1]), String(progress));
  assert.deepEqual(
    readdirSync(fixtures.dir).filter((name) => name.startsWith('.ingest-')),
    [],
  );
});

test('WGS84, RGB and integer rasters', async () => {
  const wgs84 = await ingestRaster(fixtures.file('grid-4326.tif'), fixtures.file('grid-4326.cog.tif'), GEO);
  assert.equal(wgs84.sourceCrs, 'EPSG:4326');
  assert.equal(wgs84.bands, 2);
  assert.equal(wgs84.nodata, null);
  assert.deepEqual(
    wgs84.stats.map((s) => [s.min, s.max]),
    [
      [0, 119],
      [1000, 1119],
    ],
  );
  for (const [i, v] of [7, 46.96, 7.048, 47].entries()) assert.ok(Math.abs(wgs84.bbox[i] - v) < 1e-3, `${wgs84.bbox}`);

  const rgb = await ingestRaster(fixtures.file('rgb-2056.tif'), fixtures.file('rgb-2056.cog.tif'), GEO);
  assert.equal(rgb.dataType, 'Byte');
  assert.deepEqual(rgb.display.rgbBands, [1, 2, 3]);
  assert.equal(rgb.display.renderMode, 'rgb');

  const int16 = await ingestRaster(fixtures.file('int16-2056.tif'), fixtures.file('int16-2056.cog.tif'), GEO);
  assert.equal(int16.dataType, 'Int16');
  assert.deepEqual([int16.stats[0].min, int16.stats[0].max], [-300, 490]);
  // No nodata: the tileable file gets an alpha band for the area around the data.
  assert.equal(gdalinfo(fixtures.file('int16-2056.cog.tif')).bands.at(-1).colorInterpretation, 'Alpha');
});

test('a file without a CRS is WGS84 when its coordinates fit, refused otherwise', async () => {
  const degrees = await ingestRaster(fixtures.file('nocrs-degrees.tif'), fixtures.file('nocrs-degrees.cog.tif'), GEO);
  assert.equal(degrees.sourceCrs, 'EPSG:4326');
  assert.equal(degrees.crsAssumed, true);
  assert.ok(Math.abs(degrees.bbox[0] - 8) < 1e-3 && Math.abs(degrees.bbox[3] - 46.5) < 1e-3, `${degrees.bbox}`);
  await assert.rejects(
    ingestRaster(fixtures.file('nocrs-metres.tif'), fixtures.file('nocrs-metres.cog.tif'), GEO),
    (error: unknown) => {
      assert.ok(error instanceof RasterRejected);
      assert.equal(error.code, 'unknown_crs');
      return true;
    },
  );
});

test('hostile files are refused with GDAL reason, no path of ours, nothing left behind', async () => {
  const cases: [string, RegExp][] = [
    ['not-a-tiff.tif', /not recognized as a supported file format/],
    ['png-renamed.tif', /not recognized as a supported file format/],
    ['no-georef.tif', /no georeferencing/],
    ['truncated.tif', /TIFFReadEncodedStrip|Read error|IReadBlock/],
    ['does-not-exist.tif', /No such file/],
  ];
  for (const [name, reason] of cases) {
    const out = fixtures.file(`${name}.cog.tif`);
    await assert.rejects(ingestRaster(fixtures.file(name), out, GEO), (error: unknown) => {
      assert.ok(error instanceof RasterRejected, `${name}: ${error}`);
      assert.equal(error.code, 'invalid_file');
      assert.match(error.message, reason, name);
      assert.ok(!error.message.includes(fixtures.dir), error.message);
      return true;
    });
    assert.equal(existsSync(out), false, name);
  }
  assert.deepEqual(
    readdirSync(fixtures.dir).filter((name) => name.startsWith('.ingest-')),
    [],
  );
  assert.deepEqual(
    runningChildren().filter((name) => /^gdal/.test(name)),
    [],
  );
});

test('an abort stops GDAL and leaves no file', async () => {
  const controller = new AbortController();
  const out = fixtures.file('aborted.cog.tif');
  const run = ingestRaster(fixtures.file('big-2056.tif'), out, GEO, {
    signal: controller.signal,
    onProgress: () => controller.abort(),
  });
  await assert.rejects(run, (error: unknown) => error instanceof GdalError && error.failure === 'aborted');
  assert.equal(existsSync(out), false);
  assert.deepEqual(
    runningChildren().filter((name) => /^gdal/.test(name)),
    [],
    'statistics stopped with the warp',
  );
  assert.deepEqual(
    readdirSync(fixtures.dir).filter((name) => name.startsWith('.ingest-')),
    [],
  );
});

test("gdalwarp's arguments: nodata kept, NaN for floats without, alpha for integers without", () => {
  const info: RasterInfo = {
    width: 1,
    height: 1,
    bands: 1,
    dataType: 'Float32',
    sourceDataType: 'Float32',
    nodata: null,
    hasAlpha: false,
    sourceCrs: 'EPSG:2056',
    crsAssumed: false,
    bbox: null,
  };
  const args = (changes: Partial<RasterInfo>) =>
    warpArguments({ ...info, ...changes }, 'in.tif', 'out.tif', GEO.cacheMb).join(' ');
  assert.match(
    args({}),
    /-if GTiff -of GTiff -t_srs EPSG:3857 -r near .*-dstnodata nan .*-co TILED=YES -co BLOCKXSIZE=256 -co BLOCKYSIZE=256 -co COMPRESS=DEFLATE -co PREDICTOR=3 .*in\.tif out\.tif$/,
  );
  assert.match(args({ dataType: 'Byte', nodata: 0 }), /PREDICTOR=2/);
  assert.doesNotMatch(args({ nodata: -9999 }), /dstnodata|dstalpha/);
  assert.match(args({ dataType: 'UInt16', sourceDataType: 'UInt16' }), /-dstalpha/);
  assert.doesNotMatch(args({ dataType: 'Byte', hasAlpha: true }), /dstalpha/);
  assert.match(args({ dataType: 'Float64', sourceDataType: 'Int64' }), /-ot Float64/);
  assert.match(args({ crsAssumed: true }), /-s_srs EPSG:4326/);
});

test("GDAL's progress line becomes fractions", () => {
  const seen: number[] = [];
  const parse = progressParser((f) => seen.push(f));
  parse('Input file size is 40, 32\nCreating output file that is 40P x 32L.\n0...10..');
  parse('.20...30...40...5');
  assert.equal(seen.at(-1), 0.475, 'the 5 of 50 is not yet complete');
  parse('0...60...70...80...90...100 - done.\n');
  assert.equal(seen[0], 0.15, '"0...10.." is 15 %');
  assert.equal(seen.at(-1), 1);
  assert.ok(seen.every((p, i) => i === 0 || p >= seen[i - 1]));
});
