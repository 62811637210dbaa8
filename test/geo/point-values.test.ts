/**
 * The point query's answer from gdallocationinfo's report (geo/raster/point-values.ts): the
 * report read band by band, nulls off the file, at a transparent alpha, at the file's and the
 * display's nodata (compared as the file stores them), and floats as their shortest decimal.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { locationValues, pointValues, shortestFloat32, type SourceBands } from '../../src/geo/raster/point-values.js';

/** A report as gdallocationinfo -xml writes it (GDAL 3.6). */
const report = (...values: string[]) =>
  `<Report pixel="10" line="9">\n${values
    .map((v, i) => `  <BandReport band="${i + 1}">\n    <Value>${v}</Value>\n  </BandReport>`)
    .join('\n')}\n</Report>\n`;

const OFF_FILE = `<Report pixel="-120179" line="581684">
  <Alert>Location is off this file! No further details to report.</Alert>
</Report>
`;

const int16: SourceBands = { bands: 1, hasAlpha: false, nodata: -9999, sourceDataType: 'Int16' };

test("GDAL's report, band by band; none off the file", () => {
  assert.deepEqual(locationValues(report('5', '7', '255')), ['5', '7', '255']);
  const shuffled = report('1', '2').replace('band="1"', 'band="X"').replace('band="2"', 'band="1"');
  assert.deepEqual(locationValues(shuffled.replace('band="X"', 'band="2"')), ['2', '1'], 'ordered by band number');
  assert.equal(locationValues(OFF_FILE), null);
});

test('values of the data bands; null off the file and at the nodata of the file or the display', () => {
  assert.deepEqual(pointValues(['42'], int16, null), [42]);
  assert.deepEqual(pointValues(null, { ...int16, bands: 3 }, null), [null, null, null]);
  assert.deepEqual(pointValues(['-9999'], int16, null), [null]);
  assert.deepEqual(pointValues(['30'], int16, 30), [null]);
  assert.deepEqual(pointValues(['31'], int16, 30), [31]);
  assert.deepEqual(pointValues(['nan'], { ...int16, nodata: null, sourceDataType: 'Float64' }, null), [null]);
});

test('an alpha band is not a value, and where it is 0 every band is null', () => {
  const rgba: SourceBands = { bands: 3, hasAlpha: true, nodata: null, sourceDataType: 'Byte' };
  assert.deepEqual(pointValues(['60', '40', '200', '255'], rgba, null), [60, 40, 200]);
  assert.deepEqual(pointValues(['60', '40', '200', '0'], rgba, null), [null, null, null]);
});

test('32-bit floats compare and answer as the file stores them', () => {
  const float32: SourceBands = { bands: 1, hasAlpha: false, nodata: -3.4028234663852886e38, sourceDataType: 'Float32' };
  // GDAL prints 15 significant digits: the float32 nodata no longer equals the double.
  assert.deepEqual(pointValues(['-3.40282346638529e+38'], float32, null), [null]);
  assert.deepEqual(pointValues(['1816.33996582031'], float32, null), [1816.34]);
  assert.deepEqual(pointValues(['1816.33996582031'], float32, 1816.34), [null], "the display's nodata, as a float32");
  // A 64-bit float is taken as it is.
  assert.deepEqual(
    pointValues(['1816.33996582031'], { ...float32, sourceDataType: 'Float64' }, null),
    [1816.33996582031],
  );
});

test('the shortest decimal of a 32-bit float', () => {
  assert.equal(shortestFloat32(Math.fround(1.1)), 1.1);
  assert.equal(shortestFloat32(Math.fround(6004.25)), 6004.25);
  assert.equal(shortestFloat32(Math.fround(123456.789)), 123456.79);
});
