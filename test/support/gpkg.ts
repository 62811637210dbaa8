import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import SQLite from 'better-sqlite3';
import type { Geometry, Position } from 'geojson';

/** What the GeoPackage writer tests share: GDAL's tools and readings of a file, and some geometry. */

export const PYTHON = '/usr/bin/python3'; // the one with GDAL's osgeo module (the validator checks geometries with it)
export const VALIDATOR = '/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py';

/** validate_gpkg.py passes: exit 0, nothing printed. `--extra` adds its checks of the values (DATETIME format, BOOLEAN 0/1...). */
export function assertValid(file: string, ...options: string[]): void {
  const run = spawnSync(PYTHON, [VALIDATOR, ...options, file], { encoding: 'utf8' });
  assert.equal(run.stdout + run.stderr, '', `validate_gpkg.py ${options.join(' ')}`);
  assert.equal(run.status, 0);
}

/** ogrinfo's summary of every layer: feature count and extent. */
export function ogrinfoSummary(file: string): Map<string, { count: number; extent: number[] | null }> {
  const text = execFileSync('ogrinfo', ['-ro', '-so', '-al', file], { encoding: 'utf8' });
  const layers = new Map<string, { count: number; extent: number[] | null }>();
  for (const part of text.split('\nLayer name: ').slice(1)) {
    const extent = /\nExtent: \((.+), (.+)\) - \((.+), (.+)\)/.exec(part);
    layers.set(part.split('\n')[0]!, {
      count: Number(/\nFeature Count: (\d+)/.exec(part)![1]),
      extent: extent ? extent.slice(1).map(Number) : null,
    });
  }
  return layers;
}

/** A table as GDAL reads it, as GeoJSON features (with `id` the fid; GDAL writes 15 significant digits). */
export function ogrFeatures(
  file: string,
  table: string,
): { type: 'Feature'; id: number; properties: Record<string, unknown>; geometry: Geometry | null }[] {
  const out = execFileSync('ogr2ogr', ['-f', 'GeoJSON', '-preserve_fid', '/vsistdout/', file, table], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return JSON.parse(out).features;
}

export function sqlite<T>(file: string, sql: string): T[] {
  const db = new SQLite(file, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

/** The positions of GeoJSON coordinates of any depth. */
export const positionsOf = (c: unknown): Position[] =>
  typeof (c as unknown[])[0] === 'number' ? [c as Position] : (c as unknown[]).flatMap(positionsOf);

/** [minx, miny, maxx, maxy] of all positions of some geometries. */
export function extentOf(geometries: (Geometry | null)[]): number[] {
  const collect = (g: Geometry): Position[] =>
    g.type === 'GeometryCollection' ? g.geometries.flatMap(collect) : positionsOf(g.coordinates);
  const positions = geometries.flatMap((g) => (g ? collect(g) : []));
  const xs = positions.map((p) => p[0]!);
  const ys = positions.map((p) => p[1]!);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

export const square = (x: number, y: number, size: number): Position[] => [
  [x, y],
  [x + size, y],
  [x + size, y + size],
  [x, y + size],
  [x, y],
];

/** A folder for the suite's files, removed after it. */
export function scratchDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'maproom-gpkg-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
