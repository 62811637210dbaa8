import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

/**
 * Raster fixtures for the geo-raster tests: GeoTIFFs written by GDAL (test/fixtures/rasters.py)
 * into a temporary directory, GDAL's own answers about them (through PROJ, not Maproom),
 * tile arithmetic and PNG decoding.
 */

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'rasters.py');
// Debian's python3 has GDAL's bindings, whatever python3 comes first on PATH.
const PYTHON = '/usr/bin/python3';

/** A temporary directory holding every fixture; `remove()` deletes it. */
export function makeRasterFixtures(): { dir: string; file(name: string): string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'maproom-rasters-'));
  execFileSync(PYTHON, [SCRIPT, 'make', dir]);
  return { dir, file: (name) => path.join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Probe {
  /** Fractional source pixel column and row. */
  col: number;
  row: number;
  inside: boolean;
  /** Every band's value there; null at nodata or outside. */
  values: (number | null)[];
}

/** GDAL's source pixel and values at each longitude/latitude. */
export function probe(file: string, points: [number, number][]): Probe[] {
  return JSON.parse(execFileSync(PYTHON, [SCRIPT, 'probe', file, ...points.flat().map(String)], { encoding: 'utf8' }));
}

/** GDAL's longitude/latitude of each (fractional) source pixel position. */
export function where(file: string, positions: [number, number][]): [number, number][] {
  return JSON.parse(
    execFileSync(PYTHON, [SCRIPT, 'where', file, ...positions.flat().map(String)], { encoding: 'utf8' }),
  );
}

/** The tile of zoom `z` holding a longitude/latitude, and the pixel within it. */
export function tileAt(lon: number, lat: number, z: number): { x: number; y: number; px: number; py: number } {
  const n = 2 ** z;
  const fx = ((lon + 180) / 360) * n;
  const r = (lat * Math.PI) / 180;
  const fy = ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n;
  const x = Math.floor(fx);
  const y = Math.floor(fy);
  return { x, y, px: Math.floor((fx - x) * 256), py: Math.floor((fy - y) * 256) };
}

/** Longitude/latitude of the centre of pixel (px, py) of tile z/x/y. */
export function pixelCentre(z: number, x: number, y: number, px: number, py: number): [number, number] {
  const n = 2 ** z;
  const lon = ((x + (px + 0.5) / 256) / n) * 360 - 180;
  const my = Math.PI * (1 - (2 * (y + (py + 0.5) / 256)) / n);
  return [lon, (Math.atan(Math.sinh(my)) * 180) / Math.PI];
}

/** RGBA pixels of a 256 px PNG tile; `at(px, py)` gives [r, g, b, a]. */
export async function decodeTile(png: Buffer): Promise<{ at(px: number, py: number): number[] }> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== 256 || info.height !== 256) throw new Error(`tile is ${info.width}x${info.height}`);
  return { at: (px, py) => [...data.subarray((py * 256 + px) * 4, (py * 256 + px) * 4 + 4)] };
}

/** The colour of step `i` of a 768-byte colormap table, with an alpha. */
export function lutColour(lut: Uint8Array, i: number, alpha = 255): number[] {
  return [lut[i * 3], lut[i * 3 + 1], lut[i * 3 + 2], alpha];
}
