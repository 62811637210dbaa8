/**
 * The point query answers what GDAL answers for the uploaded file:
 * `gdallocationinfo -wgs84 -valonly source.tif lon lat`, read in the file's own CRS, never a
 * neighbour from the warped tileable copy. GeoTIFFs in EPSG:2056, EPSG:3857, EPSG:4326 and
 * UTM 32N, written by GDAL here, each pixel holding its own row and column (row * 1000 +
 * col); asked at pixel centres and just inside pixel edges, through HTTP.
 * Contract: docs/http-interface.md (the point query), docs/contract-decisions.md ("Vector layers in detail").
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertOk, call, scaffold, type TestApp, type Users } from '../helpers.js';
import { newRaster, type RasterLayer } from '../support/rasters.js';

/** Debian's python3, which has GDAL's bindings. */
const PYTHON = '/usr/bin/python3';

/**
 * Writes a GeoTIFF with GDAL: `cols` x `rows` pixels of `size` CRS units from (`x0`, `y0`),
 * band 1 = row * 1000 + col (+ 0.25 for floats), band 2 (when asked) = band 1 + 500000; the
 * pixel (0, 0) is the nodata value -9999.
 */
const WRITE = `
import sys, json
from osgeo import gdal, osr
import numpy as np
out, spec = sys.argv[1], json.loads(sys.argv[2])
types = {'Int32': gdal.GDT_Int32, 'Float32': gdal.GDT_Float32}
ds = gdal.GetDriverByName('GTiff').Create(out, spec['cols'], spec['rows'], spec['bands'], types[spec['type']])
ds.SetGeoTransform([spec['x0'], spec['size'], 0, spec['y0'], 0, -spec['size']])
srs = osr.SpatialReference(); srs.ImportFromEPSG(spec['epsg']); ds.SetProjection(srs.ExportToWkt())
r, c = np.mgrid[0:spec['rows'], 0:spec['cols']]
values = (r * 1000 + c).astype('float64') + (0.25 if spec['type'] == 'Float32' else 0)
values[0, 0] = -9999
for b in range(spec['bands']):
    band = ds.GetRasterBand(b + 1)
    band.WriteArray(values if b == 0 else np.where(values == -9999, -9999, values + 500000))
    band.SetNoDataValue(-9999)
ds = None
`;

/** GDAL's longitude/latitude (WGS84, lon first) of fractional pixel positions (col, row) of a file. */
const WHERE = `
import sys, json
from osgeo import gdal, osr
ds = gdal.Open(sys.argv[1])
t = ds.GetGeoTransform()
src = osr.SpatialReference(wkt=ds.GetProjection()); src.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
dst = osr.SpatialReference(); dst.ImportFromEPSG(4326); dst.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
ct = osr.CoordinateTransformation(src, dst)
positions = json.loads(sys.argv[2])
print(json.dumps([list(ct.TransformPoint(t[0] + c * t[1], t[3] + r * t[5])[:2]) for c, r in positions]))
`;

interface Spec {
  epsg: number;
  x0: number;
  y0: number;
  size: number;
  cols: number;
  rows: number;
  bands: number;
  type: 'Int32' | 'Float32';
}

const SPECS: Record<string, Spec> = {
  // Swiss LV95 near Bern, 10 m pixels (the projection of the reported neighbour answer).
  lv95: { epsg: 2056, x0: 2600000, y0: 1200000, size: 10, cols: 40, rows: 30, bands: 1, type: 'Int32' },
  // Web Mercator over Zurich, 25 m pixels.
  mercator: { epsg: 3857, x0: 950000, y0: 6000000, size: 25, cols: 40, rows: 30, bands: 1, type: 'Int32' },
  // Longitude/latitude, 0.0007 degree pixels, 32-bit floats.
  wgs84: { epsg: 4326, x0: 7.3, y0: 46.9, size: 0.0007, cols: 40, rows: 30, bands: 1, type: 'Float32' },
  // UTM zone 32N, 30 m pixels, two bands.
  utm: { epsg: 32632, x0: 380000, y0: 5200000, size: 30, cols: 40, rows: 30, bands: 2, type: 'Int32' },
};

/** Where each file is asked: pixel centres, and just inside each edge and corner of a pixel. */
const POSITIONS: [number, number][] = [
  [5.5, 10.5],
  [17.5, 3.5],
  [5.02, 10.5],
  [5.98, 10.5],
  [5.5, 10.02],
  [5.5, 10.98],
  [12.01, 20.01],
  [12.99, 20.99],
  [33.97, 7.03],
  [0.5, 0.5], // the nodata pixel
  [39.5, 29.5],
];

let dir: string;
let t: TestApp;
let users: Users;
let room: string;
const files: Record<string, string> = {};
const layers: Record<string, RasterLayer> = {};

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'maproom-point-'));
  for (const [name, spec] of Object.entries(SPECS)) {
    files[name] = path.join(dir, `${name}.tif`);
    execFileSync(PYTHON, ['-c', WRITE, files[name], JSON.stringify(spec)]);
  }
  ({ t, users, room } = await scaffold());
  for (const name of Object.keys(SPECS)) layers[name] = await newRaster(t.app, room, users.owner.token, files[name]!);
});
after(async () => {
  if (t) await t.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Longitude/latitude of fractional pixel positions of a file, by GDAL (PROJ). */
function lonLatOf(file: string, positions: [number, number][]): [number, number][] {
  return JSON.parse(execFileSync(PYTHON, ['-c', WHERE, file, JSON.stringify(positions)], { encoding: 'utf8' }));
}

/** gdallocationinfo's own answer (one line per band; none off the file), nodata as null. */
function gdalAnswer(file: string, lon: number, lat: number, bands: number): (number | null)[] {
  const out = execFileSync('gdallocationinfo', ['-wgs84', '-valonly', file, String(lon), String(lat)], {
    encoding: 'utf8',
  });
  const lines = out.split('\n').filter((line) => line.trim() !== '');
  return Array.from({ length: bands }, (_, band) => {
    const value = lines[band] === undefined ? null : Number(lines[band]);
    return value === null || value === -9999 ? null : value;
  });
}

async function pointQuery(layer: RasterLayer, lon: number, lat: number): Promise<(number | null)[]> {
  const url = `/api/rooms/${room}/raster-layers/${layer.id}/point?lon=${lon}&lat=${lat}`;
  const body = assertOk(await call(t.app, 'GET', url, { auth: users.owner.token }));
  return body.values as (number | null)[];
}

/** Equal as the file stores them: 32-bit floats compare as 32-bit floats. */
const asStored = (values: (number | null)[], type: Spec['type']) =>
  values.map((v) => (v === null || type !== 'Float32' ? v : Math.fround(v)));

describe('the point query reads the source pixel', () => {
  for (const [name, spec] of Object.entries(SPECS)) {
    test(`EPSG:${spec.epsg}: the same values as gdallocationinfo at centres and edges of pixels`, async () => {
      const points = lonLatOf(files[name]!, POSITIONS);
      for (const [i, [lon, lat]] of points.entries()) {
        const [col, row] = POSITIONS[i]!;
        const expected = gdalAnswer(files[name]!, lon, lat, spec.bands);
        const answered = await pointQuery(layers[name]!, lon, lat);
        const where = `pixel position ${col},${row} (${lon}, ${lat})`;
        assert.deepEqual(asStored(answered, spec.type), asStored(expected, spec.type), where);
        // GDAL's answer is the pixel that holds the position: its own row and column.
        const own = Math.floor(row) * 1000 + Math.floor(col) + (spec.type === 'Float32' ? 0.25 : 0);
        assert.deepEqual(expected[0], own === (spec.type === 'Float32' ? 0.25 : 0) ? null : own, `GDAL at ${where}`);
      }
    });
  }

  test('EPSG:2056: the centre of row 10 answers row 10, not row 11', async () => {
    const [[lon, lat]] = lonLatOf(files.lv95!, [[7.5, 10.5]]);
    assert.deepEqual(await pointQuery(layers.lv95!, lon!, lat!), [10_007]);
  });

  test('every band, nulls at nodata and off the file, floats as the file stores them', async () => {
    const [centre, nodata] = lonLatOf(files.utm!, [
      [3.5, 2.5],
      [0.5, 0.5],
    ]);
    assert.deepEqual(await pointQuery(layers.utm!, ...centre!), [2003, 502003]);
    assert.deepEqual(await pointQuery(layers.utm!, ...nodata!), [null, null]);
    assert.deepEqual(await pointQuery(layers.utm!, 0, 0), [null, null]);
    const [[lon, lat]] = lonLatOf(files.wgs84!, [[4.5, 6.5]]);
    assert.deepEqual(await pointQuery(layers.wgs84!, lon!, lat!), [6004.25]);
  });
});
