import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { encodeTile, TILE_BUFFER_FRACTION, type TileFeature } from '../../src/geo/tiles.js';
import {
  isValidTile,
  latToY,
  lonToX,
  pixelSize,
  tileBbox,
  tileRange,
  xToLon,
  yToLat,
  type Bbox,
} from '../../src/geo/tile-math.js';

const decode = (bytes: Uint8Array) => new VectorTile(new PbfReader(bytes));

describe('tile math', () => {
  test('longitude/latitude and the unit square convert both ways; Mercator edges are clamped', () => {
    for (const [lon, lat] of [
      [0, 0],
      [7.4474, 46.948],
      [-122.4, 37.8],
      [179.9, -84.9],
    ]) {
      assert.ok(Math.abs(xToLon(lonToX(lon!)) - lon!) < 1e-9);
      assert.ok(Math.abs(yToLat(latToY(lat!)) - lat!) < 1e-9);
    }
    assert.equal(lonToX(-180), 0);
    assert.equal(latToY(0), 0.5);
    assert.equal(latToY(90), latToY(85.0511287798066));
    assert.ok(Math.abs(latToY(85.0511287798066)) < 1e-12);
  });

  test('tile bboxes: tile 0/0/0 is the Mercator world; z/x/y follow the XYZ scheme; buffers grow the bbox', () => {
    const world = tileBbox(0, 0, 0);
    assert.deepEqual(
      world.map((v) => Math.round(v * 1e6) / 1e6),
      [-180, -85.051129, 180, 85.051129],
    );
    // Bern is in tile 14/8530/5766 (as OpenStreetMap numbers it).
    const [west, south, east, north] = tileBbox(14, 8530, 5766);
    assert.ok(west <= 7.4474 && 7.4474 <= east && south <= 46.948 && 46.948 <= north);
    const buffered = tileBbox(14, 8530, 5766, TILE_BUFFER_FRACTION);
    assert.ok(buffered[0] < west && buffered[2] > east && buffered[1] < south && buffered[3] > north);
    assert.deepEqual(tileRange([7.4474, 46.948, 7.4474, 46.948], 14), {
      minX: 8530,
      maxX: 8530,
      minY: 5766,
      maxY: 5766,
    });
  });

  test('valid tiles and pixel sizes', () => {
    assert.ok(isValidTile(0, 0, 0) && isValidTile(22, 2 ** 22 - 1, 0));
    for (const [z, x, y] of [
      [-1, 0, 0],
      [23, 0, 0],
      [2, 4, 0],
      [2, 0, -1],
      [1.5, 0, 0],
    ])
      assert.equal(isValidTile(z!, x!, y!), false);
    assert.equal(pixelSize(0), 1 / 256);
    assert.equal(pixelSize(1, 512), 1 / 1024);
  });
});

/** A square polygon feature of `half` degrees around a centre. */
function square(
  id: number,
  lon: number,
  lat: number,
  half: number,
  properties: Record<string, unknown> = { name: `f${id}` },
): TileFeature {
  const bbox: Bbox = [lon - half, lat - half, lon + half, lat + half];
  const ring = [
    [bbox[0], bbox[1]],
    [bbox[2], bbox[1]],
    [bbox[2], bbox[3]],
    [bbox[0], bbox[3]],
    [bbox[0], bbox[1]],
  ];
  return { id, bbox, geometry: { type: 'Polygon', coordinates: [ring] }, properties };
}

describe('encodeTile', () => {
  test('an MVT 2.1 tile with one layer named features, extent 4096, ids and properties kept', () => {
    const [x, y] = [8530, 5766];
    const [lon, lat] = [xToLon((x + 0.5) / 2 ** 14), yToLat((y + 0.5) / 2 ** 14)];
    const features = [
      square(1, lon, lat, 0.001, { name: 'Bern', height: 540, public: true, tags: ['a', 'b'], none: null }),
      {
        id: 2,
        bbox: [lon, lat, lon, lat] as Bbox,
        geometry: { type: 'Point', coordinates: [lon, lat] },
        properties: { kind: 'stop' },
      },
      {
        id: 3,
        bbox: [lon - 0.01, lat - 0.01, lon + 0.01, lat + 0.01] as Bbox,
        geometry: JSON.stringify({
          type: 'LineString',
          coordinates: [
            [lon - 0.01, lat - 0.01],
            [lon + 0.01, lat + 0.01],
          ],
        }),
        properties: null,
      },
    ];
    const tile = decode(encodeTile(features, 14, x, y)!);
    assert.deepEqual(Object.keys(tile.layers), ['features']);
    const layer = tile.layers.features!;
    assert.equal(layer.version, 2);
    assert.equal(layer.extent, 4096);
    assert.equal(layer.length, 3);
    const byId = new Map(Array.from({ length: layer.length }, (_, i) => layer.feature(i)).map((f) => [f.id, f]));
    assert.deepEqual({ ...byId.get(1)!.properties }, { name: 'Bern', height: 540, public: true, tags: '["a","b"]' });
    assert.equal(byId.get(1)!.type, 3);
    assert.equal(byId.get(2)!.type, 1);
    assert.equal(byId.get(3)!.type, 2);
    // Back to longitude/latitude: the polygon's corners are where they were (within a tile unit).
    const polygon = byId.get(1)!.toGeoJSON(x, y, 14) as { geometry: { coordinates: number[][][] } };
    const unit = (tileBbox(14, x, y)[2] - tileBbox(14, x, y)[0]) / 4096;
    const corners = [
      [lon - 0.001, lat - 0.001],
      [lon + 0.001, lat - 0.001],
      [lon + 0.001, lat + 0.001],
      [lon - 0.001, lat + 0.001],
    ];
    for (const [a, b] of polygon.geometry.coordinates[0]!) {
      assert.ok(
        corners.some(([c, d]) => Math.abs(a! - c!) <= unit && Math.abs(b! - d!) <= unit),
        `${a}, ${b}`,
      );
    }
  });

  test('geometry is clipped to the tile and its buffer', () => {
    const z = 10;
    const [x, y] = [Math.floor(lonToX(7.44) * 2 ** z), Math.floor(latToY(46.95) * 2 ** z)];
    const big = square(7, 7.44, 46.95, 2);
    const layer = decode(encodeTile([big], z, x, y)!).layers.features!;
    const feature = layer.feature(0);
    const ring = feature.loadGeometry()[0]!;
    for (const point of ring) {
      assert.ok(
        point.x >= -64 && point.x <= 4096 + 64 && point.y >= -64 && point.y <= 4096 + 64,
        `${point.x}, ${point.y}`,
      );
    }
  });

  test('no feature in the tile: null (the route answers 204)', () => {
    assert.equal(encodeTile([], 3, 4, 2), null);
    assert.equal(encodeTile([square(1, 7.44, 46.95, 0.001)], 14, 0, 0), null);
  });

  test('at low zoom, features too small to draw become a mark of about one pixel, ids and properties kept', () => {
    const features = [
      square(1, 7.44, 46.95, 0.00005),
      { ...square(2, 8.5, 47.3, 0.00005), geometry: JSON.stringify(square(2, 8.5, 47.3, 0.00005).geometry) },
    ];
    const layer = decode(encodeTile(features, 6, 33, 22)!).layers.features!;
    assert.equal(layer.length, 2);
    const mark = layer.feature(0);
    assert.equal(mark.type, 3);
    assert.equal(mark.properties.name, 'f1');
    const ring = mark.loadGeometry()[0]!;
    const xs = ring.map((p) => p.x);
    assert.equal(Math.max(...xs) - Math.min(...xs), 8);
  });

  test('ids that are not unsigned integers are left out rather than corrupting the tile', () => {
    const feature = { ...square(-5, 7.44, 46.95, 0.001) };
    const layer = decode(encodeTile([feature], 14, 8530, 5766)!).layers.features!;
    assert.equal(layer.feature(0).id, undefined);
  });
});
