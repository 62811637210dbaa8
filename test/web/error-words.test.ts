import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorWords, fieldProblem } from '../../web/src/ui/error-words.js';
import { htmlPattern, megabytes, refuseOversized } from '../../web/src/ui/limits.js';
import { embedOf } from '../../web/src/ui/media-embed.js';

/**
 * The web application's pure helpers of its forms: the service's error answers worded for a
 * person (web/src/ui/error-words.ts), sizes and the refusal of an oversized file
 * (ui/limits.ts), and a marker's embedded media (ui/media-embed.ts). The browser test
 * (test/web/forms.test.ts) shows them in the page.
 */

describe("the service's errors in words", () => {
  test("a validation error names the field as the page calls it, without the validator's wording", () => {
    // As the service answers a room name of 101 characters (src/http/error-handler.ts).
    const details = [{ field: 'body.name', message: 'body.name must NOT have more than 100 characters' }];
    assert.equal(
      errorWords('validation_error', 'body.name must NOT have more than 100 characters', details),
      'The name may be at most 100 characters.',
    );
    assert.equal(
      fieldProblem('body.description', 'body.description must NOT have more than 10000 characters'),
      'The description may be at most 10,000 characters.',
    );
    assert.equal(
      fieldProblem('body.tags.2', 'body.tags.2 must NOT have more than 64 characters'),
      'Tag 3 may be at most 64 characters.',
    );
    assert.equal(
      fieldProblem('body.embeddedMediaUrl', 'body.embeddedMediaUrl must match pattern "^https?://[^\\s]+$"'),
      'The video or page link must be a web address starting with http:// or https://.',
    );
    assert.equal(
      fieldProblem('body.defaultView.lat', 'body.defaultView.lat must be <= 90'),
      'The latitude may be at most 90.',
    );
    // The service's own details carry the problem without the field (errors.ts invalidField).
    assert.equal(fieldProblem('name', 'must be 1 to 100 characters'), 'The name must be 1 to 100 characters.');
    assert.equal(fieldProblem('body.layerName', 'is required'), 'The layer name is missing.');
  });

  test('sizes are in MB, and a refusal of the quota or of a file says them', () => {
    assert.equal(
      errorWords('file_too_large', 'image is larger than 20971520 bytes', { field: 'image', maxBytes: 20971520 }),
      'The photo is too large: it may be at most 20 MB.',
    );
    assert.equal(
      errorWords('quota_exceeded', "The room owner's storage quota is full", {
        neededBytes: 60 * 1024 ** 2,
        availableBytes: 1024 ** 2 / 2,
      }),
      "The room owner's storage is full: this needs 60 MB and 0.5 MB is left.",
    );
    assert.equal(
      errorWords('validation_error', 'The chunks add up to more than 2147483648 bytes (2 GiB)'),
      'The chunks add up to more than 2 GB',
    );
    assert.equal(
      errorWords('too_many_requests', 'Too many requests; retry in 42 s'),
      'Too many tries in a short time; try again in 42 seconds.',
    );
    // Points asked as markers from a file with lines: the page's words, not the service's `as=markers`.
    assert.equal(
      errorWords('not_points', 'as=markers takes only points, but roads.geojson holds LineString features: ...'),
      'Only a file of points can be added as markers, and this one holds other features: upload it as a layer instead.',
    );
    assert.equal(megabytes(60 * 1024 ** 2), '60 MB');
    assert.equal(megabytes(1.5 * 1024 ** 2), '1.5 MB');
    assert.throws(
      () =>
        refuseOversized(new Blob([new Uint8Array(3 * 1024 ** 2)]), 2 * 1024 ** 2, {
          the: 'The photo',
          plural: 'photos',
        }),
      { message: 'The photo is 3 MB; photos may be at most 2 MB.' },
    );
    refuseOversized(new Blob([new Uint8Array(10)]), 10, { the: 'The photo', plural: 'photos' });
  });

  test("a schema's pattern becomes an input's pattern only when it holds the whole value", () => {
    assert.equal(htmlPattern('^[A-Za-z0-9_-]{10}$'), '[A-Za-z0-9_\\-]{10}');
    assert.equal(
      htmlPattern('\\S'),
      undefined,
      'a pattern the browser would anchor differently is left to the service',
    );
    assert.ok(new RegExp(`^(?:${htmlPattern('^[A-Za-z0-9_-]{10}$')})$`, 'v').test('abc_DEF-12'));
  });
});

describe("a marker's embedded media", () => {
  test('YouTube and Vimeo addresses become their players; other addresses links; other schemes nothing', () => {
    const player = 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ';
    for (const url of [
      'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42',
      'https://youtu.be/dQw4w9WgXcQ',
      'https://m.youtube.com/shorts/dQw4w9WgXcQ',
      'https://www.youtube.com/embed/dQw4w9WgXcQ',
    ])
      assert.deepEqual(embedOf(url), { kind: 'frame', provider: 'YouTube', src: player }, url);
    assert.deepEqual(embedOf('https://vimeo.com/76979871'), {
      kind: 'frame',
      provider: 'Vimeo',
      src: 'https://player.vimeo.com/video/76979871',
    });
    assert.equal(
      (embedOf('https://vimeo.com/76979871/abc123') as { src: string }).src,
      'https://player.vimeo.com/video/76979871?h=abc123',
    );
    assert.deepEqual(embedOf('https://www.youtube.com/watch?v=not-an-id'), {
      kind: 'link',
      href: 'https://www.youtube.com/watch?v=not-an-id',
    });
    assert.deepEqual(embedOf('https://example.org/page'), { kind: 'link', href: 'https://example.org/page' });
    assert.equal(embedOf('javascript:alert(1)'), null);
    assert.equal(embedOf('not a url'), null);
  });
});
