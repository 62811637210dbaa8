/**
 * A position typed into the search box: decimal degrees ("46.95, 7.44", "46.95 7.44",
 * "-33.9 151.2"), with hemisphere letters ("7.44E 46.95N", "N 46.95 E 7.44"), or degrees,
 * minutes and seconds ("46°57'03\"N 7°26'51\"E", "46 57 3 N, 7 26 51 E"). Without letters the
 * order is latitude, longitude (as most people and sites write it); letters say which is
 * which, in either order. Decimals take a point (a comma separates the two). Null when the
 * text is not a position or lies off the earth. Pure (test/web/coordinates.test.ts).
 */

export interface TypedPosition {
  lat: number;
  lon: number;
}

type Axis = 'lat' | 'lon';

const HEMISPHERES: Record<string, { axis: Axis; sign: 1 | -1 }> = {
  N: { axis: 'lat', sign: 1 },
  S: { axis: 'lat', sign: -1 },
  E: { axis: 'lon', sign: 1 },
  W: { axis: 'lon', sign: -1 },
};

/** One coordinate: signed degrees, or a hemisphere letter on either side. */
interface Part {
  value: number;
  axis: Axis | null;
}

const NUMBER = String.raw`\d+(?:\.\d+)?`;
/** Degrees, then optional minutes and seconds, each with its mark or a space. */
const PART = new RegExp(
  String.raw`^([NSEW])?\s*([-+−])?\s*(${NUMBER})\s*(?:[°º˚]\s*|\s+)?` +
    String.raw`(?:(${NUMBER})\s*(?:['′’]\s*|\s+)?)?` +
    String.raw`(?:(${NUMBER})\s*(?:["″”]|''|′′|’’)?)?` +
    String.raw`\s*([NSEW])?$`,
  'i',
);

function partOf(text: string): Part | null {
  const match = PART.exec(text.trim());
  if (!match) return null;
  const [, before, sign, degrees, minutes, seconds, after] = match;
  if (before && after) return null;
  const hemisphere = HEMISPHERES[(before ?? after ?? '').toUpperCase()];
  if (hemisphere && sign) return null;
  const [d, m, s] = [Number(degrees), minutes ? Number(minutes) : 0, seconds ? Number(seconds) : 0];
  if (m >= 60 || s >= 60) return null;
  // Minutes go with whole degrees, seconds with whole minutes.
  if ((minutes && !Number.isInteger(d)) || (seconds && !Number.isInteger(m))) return null;
  const magnitude = d + m / 60 + s / 3600;
  const negative = sign === '-' || sign === '−' || hemisphere?.sign === -1;
  return { value: negative ? -magnitude : magnitude, axis: hemisphere?.axis ?? null };
}

/** Ways to cut a text in two: at its comma or semicolon, else between words, the most even cuts first. */
function halves(text: string): [string, string][] {
  const bySeparator = text.split(/\s*[;,]\s*/);
  if (bySeparator.length === 2) return [bySeparator as [string, string]];
  if (bySeparator.length > 2) return [];
  const words = text.split(' ');
  const cuts = Array.from({ length: words.length - 1 }, (_, i) => i + 1);
  cuts.sort((a, b) => Math.abs(words.length - 2 * a) - Math.abs(words.length - 2 * b));
  return cuts.map((cut) => [words.slice(0, cut).join(' '), words.slice(cut).join(' ')]);
}

export function parseCoordinates(input: string): TypedPosition | null {
  const text = input.trim().replace(/\s+/g, ' ');
  if (!/\d/.test(text) || text.length > 80) return null;
  for (const [first, second] of halves(text)) {
    const a = partOf(first);
    const b = partOf(second);
    if (!a || !b || (a.axis !== null && a.axis === b.axis)) continue;
    const swapped = a.axis === 'lon' || b.axis === 'lat';
    const [lat, lon] = swapped ? [b.value, a.value] : [a.value, b.value];
    if (Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
    return { lat, lon };
  }
  return null;
}
