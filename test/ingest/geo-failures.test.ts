/**
 * The one place where the geo code's failures become the contract's errors
 * (src/modules/ingest/geo-failures.ts): each refusal keeps its code, sentence and details and
 * gets its status; what is not a refusal of the file passes through unchanged (a 500).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError, invalidFile } from '../../src/errors.js';
import { GdalError } from '../../src/geo-engine/gdal-process.js';
import { RasterRejected } from '../../src/geo/raster/raster-info.js';
import { VectorRejected } from '../../src/geo/vector/errors.js';
import { rasterRefusalOf, refusalOf, unreadableFileOf } from '../../src/modules/ingest/geo-failures.js';

const asAppError = (error: unknown) => {
  assert.ok(error instanceof AppError, `an AppError, not ${String(error)}`);
  return { status: error.statusCode, code: error.code, message: error.message, details: error.details };
};

test('a vector format the service does not take is 415 unsupported_format; other vector refusals are 400 with their code and details', () => {
  assert.deepEqual(asAppError(refusalOf(new VectorRejected('unsupported_format', 'A PDF; accepted: ...'))), {
    status: 415,
    code: 'unsupported_format',
    message: 'A PDF; accepted: ...',
    details: undefined,
  });
  for (const code of ['invalid_file', 'invalid_zip', 'unknown_crs', 'no_feature_tables'] as const) {
    assert.deepEqual(asAppError(refusalOf(new VectorRejected(code, `refused: ${code}`, { feature: 12 }))), {
      status: 400,
      code,
      message: `refused: ${code}`,
      details: { feature: 12 },
    });
  }
});

test('a refused GeoTIFF is 400 with its code; GDAL past its time or memory limit on a raster is 400 unsupported_raster', () => {
  assert.deepEqual(asAppError(refusalOf(new RasterRejected('unknown_crs', 'The GeoTIFF has no CRS'))), {
    status: 400,
    code: 'unknown_crs',
    message: 'The GeoTIFF has no CRS',
    details: undefined,
  });
  for (const failure of ['timeout', 'memory'] as const) {
    const mapped = asAppError(rasterRefusalOf(new GdalError('GDAL took longer than 60 s', failure)));
    assert.equal(mapped.status, 400);
    assert.equal(mapped.code, 'unsupported_raster');
    assert.equal(mapped.message, 'The GeoTIFF could not be processed within the limits: GDAL took longer than 60 s');
  }
  // The raster mapping covers the plain refusals too.
  assert.equal(asAppError(rasterRefusalOf(new RasterRejected('invalid_file', 'not a TIFF'))).code, 'invalid_file');
});

test('what is not a refusal of the file passes through unchanged', () => {
  const bug = new Error('a bug');
  assert.equal(refusalOf(bug), bug);
  assert.equal(rasterRefusalOf(bug), bug);
  // Outside a raster, GDAL's limits are not read as the file's fault; nor are a missing GDAL or a stop anywhere.
  const timeout = new GdalError('GDAL took longer than 60 s', 'timeout');
  assert.equal(refusalOf(timeout), timeout);
  for (const failure of ['missing', 'aborted'] as const) {
    const error = new GdalError('Stopped', failure);
    assert.equal(rasterRefusalOf(error), error);
    assert.equal(
      unreadableFileOf(error, () => assert.fail('not a refusal')),
      error,
    );
  }
  const known = invalidFile('already an answer');
  assert.equal(refusalOf(known), known);
});

test("GDAL failing to read a file becomes the caller's own refusal, with GDAL's reason", () => {
  const refuse = (reason: string) => invalidFile(`The table cannot be read: ${reason}`);
  const mapped = asAppError(unreadableFileOf(new GdalError('not a GeoPackage', 'failed'), refuse));
  assert.deepEqual(mapped, {
    status: 400,
    code: 'invalid_file',
    message: 'The table cannot be read: not a GeoPackage',
    details: undefined,
  });
  const bug = new Error('a bug');
  assert.equal(
    unreadableFileOf(bug, () => assert.fail('not a refusal')),
    bug,
  );
});
