import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitView } from '../../web/src/map/slide-fit.js';

const framed = { lat: 46.95, lng: 7.45, zoom: 13, width: 1200, height: 800 };

test('a slide framed on a desktop zooms out on a phone until its framed area fits', () => {
  const phone = fitView(framed, 390, 844);
  // The width is the tighter side: 390 / 1200 of it.
  assert.ok(Math.abs(phone.zoom - (13 + Math.log2(390 / 1200))) < 1e-9, String(phone.zoom));
  assert.deepEqual({ ...phone, zoom: 0 }, { ...framed, zoom: 0, width: 390, height: 844 });
});

test('on a larger screen it zooms in, by the tighter side', () => {
  assert.equal(fitView(framed, 2400, 1600).zoom, 14);
  assert.equal(fitView(framed, 4800, 1600).zoom, 14);
});

test('fitted once, a view fits the same screen as it is', () => {
  const once = fitView(framed, 390, 844);
  assert.deepEqual(fitView(once, 390, 844), once);
});

test('a view without its framed size, or a screen without a size, keeps its zoom', () => {
  const bare = { lat: 1, lng: 2, zoom: 5 };
  assert.equal(fitView(bare, 390, 844), bare);
  assert.equal(fitView(framed, 0, 844), framed);
  assert.equal(fitView(framed, Number.NaN, 844), framed);
});

test('the zoom stays within the map zooms', () => {
  assert.equal(fitView({ ...framed, zoom: 0.5 }, 100, 100).zoom, 0);
  assert.equal(fitView({ ...framed, zoom: 23.5 }, 12_000, 8000).zoom, 24);
});
