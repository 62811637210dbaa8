import turfArea from '@turf/area';
import turfLength from '@turf/length';
import { formatNumber, t } from '../i18n/index.js';

/** A shape's geodesic size: length of a line, area and perimeter of a polygon; a point has none. */
export interface Measure {
  /** Metres along a line, or around a polygon. */
  length: number | null;
  /** Square metres of a polygon. */
  area: number | null;
}

export function measureOf(geometry: GeoJSON.Geometry): Measure {
  const feature: GeoJSON.Feature = { type: 'Feature', geometry, properties: {} };
  switch (geometry.type) {
    case 'LineString':
    case 'MultiLineString':
      return { length: turfLength(feature, { units: 'kilometers' }) * 1000, area: null };
    case 'Polygon':
    case 'MultiPolygon':
      return { length: turfLength(feature, { units: 'kilometers' }) * 1000, area: turfArea(feature) };
    default:
      return { length: null, area: null };
  }
}

const FEET_PER_METRE = 3.280839895;
const METRES_PER_MILE = 1609.344;
const SQUARE_METRES_PER_ACRE = 4046.8564224;
const SQUARE_METRES_PER_SQUARE_MILE = METRES_PER_MILE ** 2;

const number = (value: number, digits: number) =>
  formatNumber(value, { maximumFractionDigits: digits, minimumFractionDigits: digits });
/** Three significant digits, at most two decimals. */
const digitsFor = (value: number) => (value >= 100 ? 0 : value >= 10 ? 1 : 2);
const round = (value: number) => number(value, digitsFor(value));

/** A length in metric and imperial units: `850 m (2,789 ft)`, `12.3 km (7.64 mi)`. */
export function formatLength(metres: number): string {
  const metric =
    metres < 1000
      ? t('room:measure.m', { value: number(metres, metres < 10 ? 1 : 0) })
      : t('room:measure.km', { value: round(metres / 1000) });
  const imperial =
    metres < METRES_PER_MILE / 4
      ? t('room:measure.ft', { value: number(metres * FEET_PER_METRE, 0) })
      : t('room:measure.mi', { value: round(metres / METRES_PER_MILE) });
  return t('room:measure.both', { metric, imperial });
}

/** An area in metric and imperial units: `5,000 m² (1.24 ac)`, `1.24 km² (0.48 mi²)`. */
export function formatArea(squareMetres: number): string {
  const metric =
    squareMetres < 100_000
      ? t('room:measure.m2', { value: number(squareMetres, 0) })
      : t('room:measure.km2', { value: round(squareMetres / 1_000_000) });
  const imperial =
    squareMetres < SQUARE_METRES_PER_SQUARE_MILE / 4
      ? t('room:measure.ac', { value: round(squareMetres / SQUARE_METRES_PER_ACRE) })
      : t('room:measure.mi2', { value: round(squareMetres / SQUARE_METRES_PER_SQUARE_MILE) });
  return t('room:measure.both', { metric, imperial });
}

/** The measure of a shape as words: `Length 1.2 km (0.75 mi)` or `Area … · perimeter …`; empty for a point. */
export function describeMeasure(geometry: GeoJSON.Geometry): string {
  const { length, area } = measureOf(geometry);
  if (area !== null) return t('room:measure.area', { area: formatArea(area), perimeter: formatLength(length ?? 0) });
  if (length !== null) return t('room:measure.length', { length: formatLength(length) });
  return '';
}
