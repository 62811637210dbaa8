import data from './colormaps.json' with { type: 'json' };

/**
 * Colour ramps for single-band rasters: 256 RGB steps each, generated from matplotlib by
 * scripts/make-colormaps.py (exact, not hand-typed). Names are lower case; a `_r` suffix
 * (matplotlib's convention) or the display's `reverse` flag turns a ramp around.
 */
const tables = data.colormaps as Record<string, string[]>;

/** Every colormap name, in the order of the generated table. */
export const COLORMAP_NAMES: readonly string[] = Object.freeze(Object.keys(tables));

const luts = new Map<string, Uint8Array>();

/** Splits `viridis_r` into its base name and a reverse flag. */
function parseName(name: string): { base: string; reversed: boolean } {
  if (Object.hasOwn(tables, name)) return { base: name, reversed: false };
  if (name.endsWith('_r') && Object.hasOwn(tables, name.slice(0, -2)))
    return { base: name.slice(0, -2), reversed: true };
  return { base: '', reversed: false };
}

/** Whether `name` is a known colormap (`_r` variants included). */
export function isColormap(name: string): boolean {
  return parseName(name).base !== '';
}

/**
 * The ramp as 768 bytes (r, g, b for steps 0..255), `reverse` flipping it; null for an
 * unknown name. Tables are built once and shared: callers must not write into them.
 */
export function colormapTable(name: string, reverse = false): Uint8Array | null {
  const { base, reversed } = parseName(name);
  if (!base) return null;
  const flip = reversed !== reverse;
  const key = `${base}:${flip}`;
  let lut = luts.get(key);
  if (!lut) {
    lut = new Uint8Array(768);
    const colours = tables[base];
    for (let i = 0; i < 256; i++) {
      const hex = colours[flip ? 255 - i : i];
      lut[i * 3] = parseInt(hex.slice(1, 3), 16);
      lut[i * 3 + 1] = parseInt(hex.slice(3, 5), 16);
      lut[i * 3 + 2] = parseInt(hex.slice(5, 7), 16);
    }
    luts.set(key, lut);
  }
  return lut;
}

/**
 * `count` evenly spaced colours of a ramp as `#rrggbb` (first and last included), for
 * legends and the colormap list; null for an unknown name.
 */
export function colormapStops(name: string, count = 8, reverse = false): string[] | null {
  const lut = colormapTable(name, reverse);
  if (!lut) return null;
  const stops: string[] = [];
  for (let k = 0; k < count; k++) {
    const i = count === 1 ? 0 : Math.round((k * 255) / (count - 1));
    stops.push(`#${[lut[i * 3], lut[i * 3 + 1], lut[i * 3 + 2]].map((c) => c.toString(16).padStart(2, '0')).join('')}`);
  }
  return stops;
}
