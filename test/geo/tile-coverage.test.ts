import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { cellKey, coverageRings } from '../../src/geo/tile-coverage.js';
import { xToLon, yToLat, type Bbox } from '../../src/geo/tile-math.js';
import { COVERAGE_PROPERTY, encodeTile, type TileFeature } from '../../src/geo/tiles.js';

const GRID = { cellsPerSide: 32, extent: 4096, buffer: 64 };
type Point = [number, number];

/** The surveyor's area in tile units (y down): clockwise exteriors positive, holes negative. */
const area = (ring: { x: number; y: number }[] | Point[]) => {
  const pts = ring.map((p) => (Array.isArray(p) ? p : [p.x, p.y])) as Point[];
  let sum = 0;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++)
    sum += (pts[j]![0] - pts[i]![0]) * (pts[i]![1] + pts[j]![1]);
  return sum / 2;
};

describe('coverageRings', () => {
  test('a 3 by 3 block with its centre empty is one polygon: a clockwise exterior and a counter-clockwise hole', () => {
    const cells = new Set<number>();
    for (let r = 2; r <= 4; r++) for (let c = 2; c <= 4; c++) if (r !== 3 || c !== 3) cells.add(cellKey(c, r));
    const polygons = coverageRings(GRID, cells);
    assert.equal(polygons.length, 1);
    const [exterior, hole] = polygons[0]!;
    assert.equal(polygons[0]!.length, 2);
    assert.equal(area(exterior!), 9 * 128 * 128);
    assert.equal(area(hole!), -128 * 128);
    // Only corners: a square ring has 4 corners plus the closing point.
    assert.equal(exterior!.length, 5);
    assert.deepEqual(exterior![0], exterior![exterior!.length - 1]);
  });

  test('separate blocks and cells touching corner to corner give separate polygons whose areas add up', () => {
    const cells = new Set([cellKey(0, 0), cellKey(1, 1), cellKey(5, 5), cellKey(6, 5)]);
    const polygons = coverageRings(GRID, cells);
    assert.equal(polygons.length, 3);
    const total = polygons.reduce((sum, rings) => sum + rings.reduce((s, ring) => s + area(ring), 0), 0);
    assert.equal(total, 4 * 128 * 128);
  });

  test('cells in the buffer are clamped to the tile and its buffer', () => {
    const polygons = coverageRings(GRID, new Set([cellKey(-1, 0), cellKey(0, 0)]));
    const xs = polygons[0]![0]!.map(([x]) => x);
    assert.equal(Math.min(...xs), -64);
  });
});

/** A tiny square polygon (under a pixel at low zooms) at the centre of tile cell (col, row) of z/x/y. */
function tinyAt(id: number, z: number, x: number, y: number, col: number, row: number): TileFeature {
  const lon = xToLon((x + (col + 0.5) / 32) / 2 ** z);
  const lat = yToLat((y + (row + 0.5) / 32) / 2 ** z);
  const d = 0.00005;
  return {
    id,
    bbox: [lon - d, lat - d, lon + d, lat + d] as Bbox,
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [lon - d, lat - d],
          [lon + d, lat - d],
          [lon + d, lat + d],
          [lon - d, lat + d],
          [lon - d, lat - d],
        ],
      ],
    },
    properties: { name: `f${id}` },
  };
}

describe('encodeTile on thinned tiles', () => {
  const [z, x, y] = [8, 133, 90];

  test('a dense layer (one small polygon in every cell of a 20 by 20 block) covers the block, not one pixel in 256', () => {
    const features: TileFeature[] = [];
    for (let row = 4; row < 24; row++)
      for (let col = 6; col < 26; col++) features.push(tinyAt(features.length + 1, z, x, y, col, row));
    const layer = new VectorTile(new PbfReader(encodeTile(features, z, x, y)!)).layers.features!;
    let painted = 0;
    let coverageFeatures = 0;
    for (let i = 0; i < layer.length; i++) {
      const feature = layer.feature(i);
      if (feature.properties[COVERAGE_PROPERTY]) coverageFeatures++;
      for (const ring of feature.loadGeometry()) painted += area(ring);
    }
    const block = 400 * 128 * 128;
    assert.ok(painted >= 0.95 * block, `painted ${painted} of ${block}`);
    assert.equal(coverageFeatures, 1);
    // One merged polygon instead of 400 marks: the tile stays small.
    assert.ok(layer.length < 10, `${layer.length} features`);
  });

  test('a lone small polygon keeps its mark with its id and properties', () => {
    const features = [tinyAt(1, z, x, y, 3, 3), tinyAt(2, z, x, y, 20, 20), tinyAt(3, z, x, y, 21, 20)];
    const layer = new VectorTile(new PbfReader(encodeTile(features, z, x, y)!)).layers.features!;
    const all = Array.from({ length: layer.length }, (_, i) => layer.feature(i));
    const lone = all.find((f) => f.id === 1);
    assert.ok(lone, 'the lone feature is drawn');
    assert.equal(lone.properties.name, 'f1');
    assert.equal(all.filter((f) => f.properties[COVERAGE_PROPERTY]).length, 1);
    assert.equal(all.length, 2);
  });

  test('from the zoom where every feature shows, small polygons are not merged', () => {
    const features = [tinyAt(1, 16, 34100, 23000, 3, 3), tinyAt(2, 16, 34100, 23000, 4, 3)];
    const layer = new VectorTile(new PbfReader(encodeTile(features, 16, 34100, 23000)!)).layers.features!;
    const all = Array.from({ length: layer.length }, (_, i) => layer.feature(i));
    assert.deepEqual(all.map((f) => f.id).sort(), [1, 2]);
  });
});
