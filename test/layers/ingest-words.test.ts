import assert from 'node:assert/strict';
import { test } from 'node:test';
import { featuresDone, progressWords } from '../../src/modules/layers/ingest-words.js';

test("an ingest's progress groups its counts and names no job: a file's only table goes unnamed", () => {
  assert.equal(featuresDone('read', 26_008, 187_388), 'read 26,008 of 187,388 features');
  assert.equal(featuresDone('stored', 2000, 1_000_000), 'stored 2,000 of 1,000,000 features');
  assert.equal(featuresDone('read', 1, 1), 'read 1 of 1 feature');
  // Not counted before the read (a GeoJSON read without GDAL): the count so far alone.
  assert.equal(featuresDone('read', 26_008, null), 'read 26,008 features');
  assert.equal(featuresDone('read', 1, null), 'read 1 feature');
  // One table: named after the stored file, a job's id; not shown.
  assert.equal(progressWords(1, 'upload-3f9a2c', 'read 5 of 9 features'), 'read 5 of 9 features');
  // Among several, each says which it is.
  assert.equal(progressWords(2, 'roads', 'building the spatial index'), 'roads: building the spatial index');
});
