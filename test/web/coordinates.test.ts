/**
 * The search box's coordinates (web/src/map/coordinates.ts): decimal and DMS, hemisphere
 * letters on either side and in either order, negative values; latitude first without letters;
 * out-of-range and non-positions refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCoordinates } from '../../web/src/map/coordinates.js';

const near = (text: string, lat: number, lon: number) => {
  const position = parseCoordinates(text);
  assert.ok(position, `${text} is a position`);
  assert.ok(
    Math.abs(position.lat - lat) < 1e-6 && Math.abs(position.lon - lon) < 1e-6,
    `${text}: ${JSON.stringify(position)}`,
  );
};

test('decimal degrees, latitude first without letters', () => {
  near('46.95, 7.44', 46.95, 7.44);
  near('46.95 7.44', 46.95, 7.44);
  near('  46.95,7.44 ', 46.95, 7.44);
  near('46.95; 7.44', 46.95, 7.44);
  near('-33.8688, 151.2093', -33.8688, 151.2093);
  near('40.7 -74.0', 40.7, -74);
  near('−12.5 −45', -12.5, -45);
});

test('hemisphere letters say which is which, in either order and on either side', () => {
  near('7.44E 46.95N', 46.95, 7.44);
  near('46.95N 7.44E', 46.95, 7.44);
  near('N 46.95 E 7.44', 46.95, 7.44);
  near('33.87 S, 151.21 E', -33.87, 151.21);
  near('74w 40.7n', 40.7, -74);
});

test('degrees, minutes and seconds, with marks or spaces', () => {
  const lat = 46 + 57 / 60 + 3 / 3600;
  const lon = 7 + 26 / 60 + 51 / 3600;
  near(`46°57'03"N 7°26'51"E`, lat, lon);
  near('46°57′03″N, 7°26′51″E', lat, lon);
  near('46 57 3 N, 7 26 51 E', lat, lon);
  near('46 57 3 N 7 26 51 E', lat, lon);
  near(`7°26'51"E 46°57'03"N`, lat, lon);
  near(`33°52'S 151°12'E`, -(33 + 52 / 60), 151.2);
  near('46 57 3, 7 26 51', lat, lon);
  near('-46 57 3, -7 26 51', -lat, -lon);
});

test('out of range, malformed or not a position: null', () => {
  for (const text of [
    '91, 7',
    '46, 181',
    '7.44E 200N',
    "46°61'N 7°E",
    "46.5°30'N 7E",
    'N 46 E 7 N',
    '46N 7N',
    '-46N 7E',
    '46.95',
    'Bern',
    'Parcel 12',
    '',
    '1, 2, 3',
    '46,95 7,44 8',
  ])
    assert.equal(parseCoordinates(text), null, text);
});
