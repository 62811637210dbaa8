import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CoordinateError,
  layerGeometryType,
  summarizeGeometry,
  KIND_LINE,
  KIND_POINT,
  KIND_POLYGON,
} from '../../src/geo/feature-summary.js';
import { firstDifferingLevel, HILBERT_LEVELS, hilbertKey, hilbertKeyOfCell } from '../../src/geo/hilbert.js';
import {
  bboxesTouch,
  chunkManifestText,
  featureCollectionText,
  featuresSurelyInside,
} from '../../src/geo/layer-answers.js';
import { featureText, LayerOrdering, stageFeature } from '../../src/geo/layer-rows.js';
import { detailZoom, simplifyGeometry, simplifyLine } from '../../src/geo/simplify.js';
import { createMinzoomAssigner, DEFAULT_THINNING, mercatorSize } from '../../src/geo/thinning.js';
import { latToY, lonToX, pixelSize, type Bbox } from '../../src/geo/tile-math.js';

/** A deterministic pseudo-random source. */
function randomSource(seed: number) {
  return () => (seed = (seed * 16807) % 2147483647) / 2147483647;
}

describe('summarizeGeometry', () => {
  test('bbox and kinds of every geometry type; null and empty geometries have none', () => {
    assert.deepEqual(summarizeGeometry({ type: 'Point', coordinates: [7, 46] }), {
      bbox: [7, 46, 7, 46],
      kinds: KIND_POINT,
    });
    assert.deepEqual(
      summarizeGeometry({
        type: 'MultiLineString',
        coordinates: [
          [
            [0, 1],
            [2, 3],
          ],
          [
            [-1, 5],
            [0, 0],
          ],
        ],
      })!.bbox,
      [-1, 0, 2, 5],
    );
    const collection = {
      type: 'GeometryCollection',
      geometries: [
        { type: 'Point', coordinates: [1, 1] },
        {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [2, 0],
              [2, 2],
              [0, 0],
            ],
          ],
        },
      ],
    };
    assert.equal(summarizeGeometry(collection)!.kinds, KIND_POINT | KIND_POLYGON);
    assert.equal(summarizeGeometry(null), null);
    assert.equal(summarizeGeometry({ type: 'MultiPoint', coordinates: [] }), null);
    assert.equal(layerGeometryType(KIND_LINE), 'LineString');
    assert.equal(layerGeometryType(KIND_LINE | KIND_POLYGON), 'Mixed');
  });

  test('positions that are not longitude/latitude are refused', () => {
    for (const geometry of [
      { type: 'Point', coordinates: [181, 0] },
      { type: 'Point', coordinates: [0, -90.5] },
      { type: 'Point', coordinates: [0, null] },
      { type: 'LineString', coordinates: [0, 1] },
      { type: 'Circle', coordinates: [0, 1] },
    ]) {
      assert.throws(() => summarizeGeometry(geometry), CoordinateError, JSON.stringify(geometry));
    }
  });
});

describe('Hilbert keys', () => {
  test('every quadtree cell is one contiguous run of keys', () => {
    const level = 3;
    const side = 2 ** level;
    const shift = 2 ** (HILBERT_LEVELS - level);
    const keys: number[] = [];
    for (let x = 0; x < side; x++) for (let y = 0; y < side; y++) keys.push(hilbertKeyOfCell(x * shift, y * shift));
    // The cells' keys, divided down to the level, are exactly 0 .. 4^level - 1.
    assert.deepEqual(
      keys.map((k) => Math.floor(k / shift ** 2)).sort((a, b) => a - b),
      Array.from({ length: side * side }, (_, i) => i),
    );
  });

  test('firstDifferingLevel tells the coarsest level where two keys part', () => {
    const random = randomSource(7);
    for (let i = 0; i < 2000; i++) {
      const [a, b] = [
        hilbertKey(random() * 360 - 180, random() * 170 - 85),
        hilbertKey(random() * 360 - 180, random() * 170 - 85),
      ];
      const level = firstDifferingLevel(a, b);
      const cell = (key: number, l: number) => Math.floor(key / 4 ** (HILBERT_LEVELS - l));
      if (a === b) assert.equal(level, HILBERT_LEVELS + 1);
      else {
        assert.notEqual(cell(a, level), cell(b, level));
        assert.equal(cell(a, level - 1), cell(b, level - 1));
      }
    }
  });

  test('neighbours get near keys: consecutive keys are adjacent cells', () => {
    for (let key = 0; key < 50; key++) {
      // Walk the curve at level 26 near the origin by brute force over a small window.
      const found: [number, number][] = [];
      for (let x = 0; x < 8; x++) for (let y = 0; y < 8; y++) if (hilbertKeyOfCell(x, y) === key) found.push([x, y]);
      const next: [number, number][] = [];
      for (let x = 0; x < 8; x++) for (let y = 0; y < 8; y++) if (hilbertKeyOfCell(x, y) === key + 1) next.push([x, y]);
      assert.equal(Math.abs(found[0]![0] - next[0]![0]) + Math.abs(found[0]![1] - next[0]![1]), 1);
    }
  });
});

describe('thinning', () => {
  /** Features of a dense random cluster sorted by key, with their minzoom. */
  function thinned(count: number, spread: number, size = 0) {
    const random = randomSource(42);
    const features = Array.from({ length: count }, () => {
      const [lon, lat] = [7.4 + random() * spread, 46.9 + random() * spread];
      return { lon, lat, key: hilbertKey(lon, lat) };
    }).sort((a, b) => a.key - b.key);
    const assign = createMinzoomAssigner();
    return features.map((f) => ({ ...f, minzoom: assign(f.key, size) }));
  }

  test('at each zoom, at most one small feature per grid cell of a tile shows', () => {
    const features = thinned(20_000, 0.5);
    const cellsPerSide = 2 ** DEFAULT_THINNING.cellsPerTileLog2;
    for (let zoom = 0; zoom <= 14; zoom++) {
      const cells = new Map<string, number>();
      for (const f of features.filter((f) => f.minzoom <= zoom)) {
        const n = 2 ** zoom * cellsPerSide;
        const cell = `${Math.floor(lonToX(f.lon) * n)}/${Math.floor(latToY(f.lat) * n)}`;
        cells.set(cell, (cells.get(cell) ?? 0) + 1);
      }
      assert.ok(Math.max(0, ...cells.values()) <= 1, `zoom ${zoom}`);
    }
    // Every feature shows by the rule's last zoom, and some show at each lower zoom.
    assert.ok(features.every((f) => f.minzoom <= DEFAULT_THINNING.maxZoom));
    assert.ok(features.some((f) => f.minzoom === 0));
  });

  test('a large feature shows from the zoom where it is that large', () => {
    const large = 1 / (2 ** 8 * 2 ** DEFAULT_THINNING.largeFeatureLog2); // large from zoom 8 on
    const features = thinned(1000, 0.01, large);
    assert.ok(features.every((f) => f.minzoom <= 8));
    assert.equal(mercatorSize([0, 0, 360 / 2 ** 10, 0]), 1 / 2 ** 10);
  });
});

describe('simplification for ?zoom=', () => {
  const ring = (n: number, radius: number): number[][] => {
    const points = Array.from({ length: n }, (_, i) => [
      7.44 + radius * Math.cos((2 * Math.PI * i) / n),
      46.95 + radius * Math.sin((2 * Math.PI * i) / n),
    ]);
    return [...points, points[0]!];
  };

  test('detailZoom is the lowest zoom at which nothing is simplified away', () => {
    const random = randomSource(3);
    for (let i = 0; i < 300; i++) {
      const geometry = { type: 'Polygon', coordinates: [ring(5 + Math.floor(random() * 60), random() * 0.05)] };
      const zoom = detailZoom(geometry);
      const count = (z: number) => (simplifyGeometry(geometry, z).coordinates as number[][][])[0]!.length;
      assert.equal(count(zoom), geometry.coordinates[0]!.length, `at detail zoom ${zoom}`);
      if (zoom > 0) assert.ok(count(zoom - 1) < geometry.coordinates[0]!.length, `below detail zoom ${zoom}`);
    }
    assert.equal(detailZoom({ type: 'Point', coordinates: [7, 46] }), 0);
  });

  test('lines keep their ends, rings at least a triangle, positions are original ones', () => {
    const line = ring(100, 0.01).slice(0, 60);
    const simplified = simplifyLine(line, pixelSize(2) ** 2, false);
    assert.deepEqual([simplified[0], simplified.at(-1)], [line[0], line.at(-1)]);
    const tiny = simplifyGeometry({ type: 'Polygon', coordinates: [ring(40, 0.0001)] }, 3).coordinates as number[][][];
    assert.equal(tiny[0]!.length, 4);
    const original = new Set(ring(40, 0.0001).map(String));
    assert.ok(tiny[0]!.every((p) => original.has(String(p))));
  });
});

describe('LayerOrdering and staged features', () => {
  test('rows are numbered in key order, chunks of the given size carry their count and bbox', () => {
    const ordering = new LayerOrdering(3);
    const boxes: Bbox[] = [
      [0, 0, 1, 1],
      [2, 2, 3, 3],
      [1, 1, 4, 4],
      [5, 5, 6, 6],
      [-1, 0, 0, 2],
    ];
    const result = boxes.map((bbox, i) => ordering.add(i * 10, bbox));
    assert.deepEqual(
      result.map((r) => r.row),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(ordering.chunks(), [
      { index: 0, firstRow: 1, lastRow: 3, featureCount: 3, bbox: [0, 0, 4, 4] },
      { index: 1, firstRow: 4, lastRow: 5, featureCount: 2, bbox: [-1, 0, 6, 6] },
    ]);
  });

  test('a staged feature turns back into a GeoJSON Feature without parsing', () => {
    const staged = stageFeature({
      id: 9,
      bbox: [7, 46, 7, 46],
      geometry: { type: 'Point', coordinates: [7, 46] },
      properties: { a: 'x"y' },
    });
    assert.equal(staged.key, hilbertKey(7, 46));
    assert.equal(staged.detailZoom, 0);
    assert.deepEqual(JSON.parse(featureText(staged.id, staged.geometry, staged.properties)), {
      type: 'Feature',
      id: 9,
      geometry: { type: 'Point', coordinates: [7, 46] },
      properties: { a: 'x"y' },
    });
  });
});

describe('feature route answers', () => {
  test('chunks wholly inside a bbox bound its feature count from below', () => {
    const chunks = [
      { index: 0, featureCount: 10, bbox: [0, 0, 1, 1] as Bbox },
      { index: 1, featureCount: 5, bbox: [0.5, 0.5, 3, 3] as Bbox },
    ];
    assert.equal(featuresSurelyInside(chunks, [0, 0, 2, 2]), 10);
    assert.equal(featuresSurelyInside(chunks, [-1, -1, 4, 4]), 15);
    assert.ok(bboxesTouch(chunks[1]!.bbox, [2, 2, 5, 5]) && !bboxesTouch(chunks[0]!.bbox, [2, 2, 5, 5]));
    const manifest = JSON.parse(chunkManifestText(chunks, 15, (i) => `/api/layers/layer-x/features/chunks/${i}`));
    assert.deepEqual(manifest._metadata, {
      complete: false,
      featureCount: 15,
      directChunks: [
        { path: '/api/layers/layer-x/features/chunks/0', featureCount: 10, bbox: [0, 0, 1, 1] },
        { path: '/api/layers/layer-x/features/chunks/1', featureCount: 5, bbox: [0.5, 0.5, 3, 3] },
      ],
    });
  });

  test('a FeatureCollection of stored rows: texts as stored, simplified only below their detail zoom', () => {
    const circle = Array.from({ length: 40 }, (_, i) => [7 + 0.01 * Math.cos(i / 6.4), 46 + 0.01 * Math.sin(i / 6.4)]);
    const geometry = { type: 'Polygon', coordinates: [[...circle, circle[0]!]] };
    const row = { id: 4, detailZoom: detailZoom(geometry), geometry: JSON.stringify(geometry), properties: '{"a":1}' };
    const full = JSON.parse(featureCollectionText([row]));
    assert.deepEqual(full.features[0], { type: 'Feature', id: 4, geometry, properties: { a: 1 } });
    assert.deepEqual(full._metadata, { complete: true, featureCount: 1 });
    const atDetail = JSON.parse(featureCollectionText([row], row.detailZoom));
    assert.deepEqual(atDetail.features[0].geometry, geometry);
    const zoomedOut = JSON.parse(featureCollectionText([row], 5, { bbox: [0, 0, 1, 1] }));
    assert.ok(zoomedOut.features[0].geometry.coordinates[0].length < 41);
    assert.deepEqual(zoomedOut._metadata, { complete: true, featureCount: 1, bbox: [0, 0, 1, 1] });
  });
});
