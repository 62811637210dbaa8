/**
 * The display PATCH and the point query over HTTP: every key checked against the raster
 * (400 naming it, nothing changed), keys merged into the stored display, a new band stretched
 * to its own statistics, history and live `rasterLayer.updated` with the new display, write-only
 * callers; the band values at a point (GDAL's own values, null at nodata and outside).
 * Contract: docs/http-interface.md (raster display PATCH), docs/contract-decisions.md ("Layers and rasters",
 * "Vector layers in detail": the point query, "Callers that may write but not read").
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { assertError, assertOk, call, createRoom, issueToken, roomHistory, scaffoldSuite } from '../helpers.js';
import { probe, where } from '../raster-fixtures.js';
import { LiveClient } from '../support/live-client.js';
import { cellCentre, makeUploadFixtures, newRaster, patchDisplay, type RasterLayer } from '../support/rasters.js';

let fixtures: ReturnType<typeof makeUploadFixtures>;
let grid: RasterLayer;
let rgb: RasterLayer;
let twoBands: RasterLayer;

const s = scaffoldSuite({ listen: true }, async () => {
  fixtures = makeUploadFixtures();
  grid = await newRaster(s.t.app, s.room, s.users.owner.token, fixtures.file('grid-2056.tif'));
  rgb = await newRaster(s.t.app, s.room, s.users.owner.token, fixtures.file('rgb-2056.tif'));
  twoBands = await newRaster(s.t.app, s.room, s.users.owner.token, fixtures.file('grid-4326.tif'));
});
after(async () => {
  fixtures?.remove();
});

const owner = () => s.users.owner.token;
const stored = async (layer: RasterLayer) =>
  (
    assertOk(await call(s.t.app, 'GET', `/api/rooms/${s.room}/raster-layers`, { auth: owner() }))
      .rasterLayers as RasterLayer[]
  ).find((l) => l.id === layer.id)!;

describe('PATCH display', () => {
  test('every key is checked against the raster: 400 naming it, and nothing changes', async () => {
    const cases: [RasterLayer, unknown, string][] = [
      [grid, { band: 2 }, 'body.band'],
      [grid, { band: 0 }, 'body.band'],
      [grid, { colormap: 'nonesuch' }, 'body.colormap'],
      [grid, { colormap: 'viridis_rr' }, 'body.colormap'],
      [grid, { vmin: 10, vmax: 10 }, 'body.vmin'],
      [grid, { vmin: 1000 }, 'body.vmin'], // above the stored vmax
      [grid, { opacity: 1.01 }, 'body.opacity'],
      [grid, { opacity: -0.1 }, 'body.opacity'],
      [grid, { renderMode: 'rgb' }, 'body.renderMode'],
      [grid, { renderMode: 'hillshade' }, 'body.renderMode'],
      [grid, { resampling: 'cubic' }, 'body.resampling'],
      [grid, { reverse: 'yes' }, 'body.reverse'],
      [grid, { nodata: 'none' }, 'body.nodata'],
      [grid, { palette: 'viridis' }, 'body.palette'],
      [rgb, { rgbBands: [1, 2] }, 'body.rgbBands'],
      [rgb, { rgbBands: [1, 2, 4] }, 'body.rgbBands'],
      [rgb, { rgbMin: [0, 0, 0], rgbMax: [255, 0, 255] }, 'body.rgbMin'],
      [rgb, { rgbMax: [1, 2] }, 'body.rgbMax'],
    ];
    const historyBefore = await roomHistory(s.t.app, s.room, owner());
    for (const [layer, body, field] of cases) {
      const before = await stored(layer);
      const res = await patchDisplay(s.t.app, s.room, layer.id, body, owner());
      const error = assertError(res, 400, 'validation_error');
      assert.ok(
        error.details.some((d: { field: string }) => d.field === field),
        `${JSON.stringify(body)} names ${field}: ${res.body}`,
      );
      assert.deepEqual(await stored(layer), before, `${JSON.stringify(body)} changed nothing`);
    }
    assert.deepEqual(await roomHistory(s.t.app, s.room, owner()), historyBefore);
    assertError(await patchDisplay(s.t.app, s.room, grid.id, {}, owner()), 400, 'empty_update');
  });

  test('keys merge into the stored display; history and live clients get rasterLayer.updated with it', async () => {
    const client = new LiveClient(`${s.wsBase}/api/rooms/${s.room}/live?access_token=${s.users.viewer.token}`);
    try {
      await client.at(0);
      const before = await stored(grid);
      const answer = assertOk(
        await patchDisplay(s.t.app, s.room, grid.id, { colormap: 'terrain', vmin: 5, vmax: 60, opacity: 0.7 }, owner()),
      );
      assert.equal(answer.success, true);
      const display = { ...before.display, colormap: 'terrain', vmin: 5, vmax: 60, opacity: 0.7 };
      assert.deepEqual(answer.rasterLayer.display, display);
      assert.deepEqual((await stored(grid)).display, display);
      const [event] = await roomHistory(s.t.app, s.room, owner());
      assert.deepEqual(
        [event!.type, event!.objectType, event!.objectId],
        ['rasterLayer.updated', 'rasterLayer', grid.id],
      );
      assert.deepEqual(event!.changes, { display: { colormap: 'terrain', vmin: 5, vmax: 60, opacity: 0.7 } });
      const live = await client.waitUntil((m) => m.type === 'rasterLayer.updated', 'rasterLayer.updated');
      assert.deepEqual([live.objectType, live.objectId, live.data.display], ['rasterLayer', grid.id, display]);
      // null asks for the automatic stretch again.
      assert.deepEqual(
        assertOk(await patchDisplay(s.t.app, s.room, grid.id, { vmin: null, vmax: null }, owner())).rasterLayer.display
          .vmin,
        null,
      );
    } finally {
      client.terminate();
    }
  });

  test('a new band without a stretch is stretched to its own statistics', async () => {
    const { display } = assertOk(await patchDisplay(s.t.app, s.room, twoBands.id, { band: 2 }, owner())).rasterLayer;
    assert.ok(display.vmin >= 1000 && display.vmax > 1100 && display.vmax <= 1119, `${display.vmin}..${display.vmax}`);
    const given = assertOk(await patchDisplay(s.t.app, s.room, twoBands.id, { band: 1, vmin: 3, vmax: 4 }, owner()))
      .rasterLayer.display;
    assert.deepEqual([given.band, given.vmin, given.vmax], [1, 3, 4]);
  });

  test("another room's raster, a vector layer or no layer at all is 404", async () => {
    const other = await createRoom(s.t.app, s.users.owner);
    assertError(await patchDisplay(s.t.app, other, grid.id, { opacity: 0.5 }, owner()), 404, 'not_found');
    assertError(await patchDisplay(s.t.app, s.room, 'layer-absent', { opacity: 0.5 }, owner()), 404, 'not_found');
    const vector = assertOk(
      await call(s.t.app, 'POST', `/api/rooms/${s.room}/layers`, {
        auth: owner(),
        body: {
          name: 'Line',
          geojson: {
            type: 'FeatureCollection',
            features: [
              {
                type: 'Feature',
                geometry: {
                  type: 'LineString',
                  coordinates: [
                    [7, 46],
                    [8, 47],
                  ],
                },
                properties: {},
              },
            ],
          },
        },
      }),
    ).layer;
    assertError(await patchDisplay(s.t.app, s.room, vector.id, { opacity: 0.5 }, owner()), 404, 'not_found');
  });

  test('a token that may write but not read gets back only the id', async () => {
    const writer = await issueToken(s.t.app, s.users.owner, s.room, ['write']);
    const res = await patchDisplay(s.t.app, s.room, rgb.id, { opacity: 0.9 }, writer.token);
    assert.deepEqual(assertOk(res), { success: true, rasterLayer: { id: rgb.id } });
    assert.equal((await stored(rgb)).display.opacity, 0.9);
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${s.room}/raster-layers`, { auth: writer.token }),
      403,
      'forbidden',
    );
  });
});

describe('the point query', () => {
  const pointUrl = (layer: RasterLayer, lon: number, lat: number) =>
    `/api/rooms/${s.room}/raster-layers/${layer.id}/point?lon=${lon}&lat=${lat}`;
  const valuesAt = async (layer: RasterLayer, lon: number, lat: number) => {
    const body = assertOk(await call(s.t.app, 'GET', pointUrl(layer, lon, lat), { auth: owner() }));
    assert.deepEqual([body.lon, body.lat], [lon, lat]);
    return body.values;
  };

  test("every band's value where GDAL finds it; null at nodata and outside", async () => {
    const file = fixtures.file('grid-2056.tif');
    const points = where(file, [cellCentre(0, 0), cellCentre(7, 5), cellCentre(9, 7), cellCentre(5, 2)]);
    const gdal = probe(file, points);
    for (const [i, [lon, lat]] of points.entries())
      assert.deepEqual(await valuesAt(grid, lon!, lat!), gdal[i]!.values, `point ${lon},${lat}`);
    assert.deepEqual(
      gdal.map((answer) => answer.values[0]),
      [0, 57, 79, null],
      'the cells asked for (cell 25 is nodata)',
    );
    assert.deepEqual(await valuesAt(grid, 0, 0), [null]);

    const file4326 = fixtures.file('grid-4326.tif');
    const [[lon, lat]] = where(file4326, [cellCentre(3, 2)]);
    assert.deepEqual(await valuesAt(twoBands, lon!, lat!), [27, 1027]);
    assert.deepEqual(
      await valuesAt(rgb, ...where(fixtures.file('rgb-2056.tif'), [cellCentre(3, 2)])[0]!),
      [60, 40, 200],
    );
  });

  test("the display's nodata is null too; lon and lat are checked", async () => {
    const [[lon, lat]] = where(fixtures.file('grid-2056.tif'), [cellCentre(0, 3)]);
    assertOk(await patchDisplay(s.t.app, s.room, grid.id, { nodata: 30 }, owner()));
    assert.deepEqual(await valuesAt(grid, lon!, lat!), [null]);
    assertOk(await patchDisplay(s.t.app, s.room, grid.id, { nodata: null }, owner()));
    assert.deepEqual(await valuesAt(grid, lon!, lat!), [30]);
    for (const query of ['lon=181&lat=0', 'lon=0&lat=-91', 'lon=abc&lat=1', 'lon=1']) {
      assertError(
        await call(s.t.app, 'GET', `/api/rooms/${s.room}/raster-layers/${grid.id}/point?${query}`, { auth: owner() }),
        400,
        'validation_error',
      );
    }
  });
});
