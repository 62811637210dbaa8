import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  clampedRatio,
  legendRows,
  MAX_CANVAS_PX,
  metresPerPixel,
  mmToPx,
  pageAroundMap,
  pageLayout,
  pageMm,
  picturePlan,
  printFileName,
  scaleBar,
} from '../../web/src/map/print-layout.js';

// The pure part of "Print / export" (web/src/map/print-layout.ts): paper sizes, where each part
// of a page goes, the scale bar, the biggest canvas, the file's name.

test('paper sizes in mm turn for landscape, and become pixels at a dpi', () => {
  assert.deepEqual(pageMm('a4', 'portrait'), { width: 210, height: 297 });
  assert.deepEqual(pageMm('a3', 'landscape'), { width: 420, height: 297 });
  assert.deepEqual(pageMm('letter', 'portrait'), { width: 215.9, height: 279.4 });
  // A4 at 300 dpi is the printers' 2480 x 3508.
  assert.equal(mmToPx(210, 300), 2480);
  assert.equal(mmToPx(297, 300), 3508);
  assert.equal(mmToPx(25.4, 96), 96);
});

test("a page's parts stay inside it and do not overlap: title, map, legend, scale bar, north arrow, footer", () => {
  for (const [w, h] of [
    [297, 210],
    [210, 297],
    [420, 297],
  ] as const) {
    const page = pageLayout(w, h, 1, 3);
    const boxes = [page.title, page.map, page.legend, page.scale, page.north, page.footer];
    for (const box of boxes) {
      assert.ok(box.x >= 0 && box.y >= 0 && box.width > 0 && box.height > 0, JSON.stringify(box));
      assert.ok(box.x + box.width <= w + 1e-9 && box.y + box.height <= h + 1e-9, JSON.stringify(box));
    }
    assert.ok(page.title.y + page.title.height <= page.map.y);
    assert.ok(page.map.y + page.map.height <= page.legend.y);
    assert.ok(page.legend.x + page.legend.width <= page.scale.x);
    assert.ok(page.scale.x + page.scale.width <= page.north.x);
    assert.ok(page.legend.y + page.legend.height <= page.footer.y);
    assert.ok(page.map.height > h / 2, 'the map takes most of the page');
  }
  // A long legend takes at most a third of the page.
  const long = pageLayout(210, 297, 1, 200);
  assert.ok(long.legend.height <= 297 / 3);
});

test('a page around a map keeps the map exactly its size (a PNG at the screen size)', () => {
  const page = pageAroundMap(1000, 600, 96 / 25.4, 2);
  assert.equal(Math.round(page.map.width), 1000);
  assert.equal(Math.round(page.map.height), 600);
  assert.ok(page.height > 600 && page.width > 1000);
});

test('metres per pixel: the equator at zoom 0 is the earth over 512 px, half at 60°', () => {
  assert.ok(Math.abs(metresPerPixel(0, 0) - 78271.517) < 0.01);
  assert.ok(Math.abs(metresPerPixel(0, 60) - 78271.517 / 2) < 0.01);
  assert.ok(Math.abs(metresPerPixel(10, 0) - 78271.517 / 1024) < 0.01);
});

test('the scale bar is the longest 1, 2 or 5 times a power of ten that fits, in m or km', () => {
  assert.deepEqual(scaleBar(1, 100), { metres: 100, pixels: 100, value: 100, unit: 'm' });
  assert.deepEqual(scaleBar(1, 99), { metres: 50, pixels: 50, value: 50, unit: 'm' });
  assert.deepEqual(scaleBar(10, 300), { metres: 2000, pixels: 200, value: 2, unit: 'km' });
  assert.deepEqual(scaleBar(3, 200), { metres: 500, pixels: 500 / 3, value: 500, unit: 'm' });
  assert.equal(scaleBar(0.01, 150).metres, 1);
  assert.equal(scaleBar(Number.NaN, 100).metres, 0);
  // At zoom 12, latitude 46: about 13.3 m per px; 150 px hold 1.99 km (so 1 km), 160 px 2.12 km (so 2 km).
  assert.equal(scaleBar(metresPerPixel(12, 46), 150).metres, 1000);
  assert.equal(scaleBar(metresPerPixel(12, 46), 160).metres, 2000);
});

test("a canvas over MapLibre's biggest is drawn at a lower pixel ratio, and says so", () => {
  assert.deepEqual(clampedRatio(1000, 500, 2), { pixelRatio: 2, clamped: false, width: 2000, height: 1000 });
  const big = clampedRatio(3000, 1000, 2);
  assert.equal(big.clamped, true);
  assert.ok(big.width <= MAX_CANVAS_PX && big.height <= MAX_CANVAS_PX);
});

test('a plan: the screen at 1x and 2x, a page at 300 dpi (clamped for A3), a PDF in mm at 200 dpi', () => {
  const screen = { width: 800, height: 500 };
  const one = picturePlan({ kind: 'png', size: 'screen' }, screen, 1);
  assert.deepEqual([one.cssWidth, one.cssHeight, one.pixelRatio, one.clamped, one.dpi], [800, 500, 1, false, 96]);
  assert.equal(Math.round(one.page.map.width), 800);
  const two = picturePlan({ kind: 'png', size: '2x' }, screen, 1);
  assert.equal(Math.round(two.page.map.width), 1600);
  const a4 = picturePlan({ kind: 'png', size: 'paper', paper: 'a4', orientation: 'landscape' }, screen, 1);
  assert.equal(a4.clamped, false);
  assert.equal(a4.dpi, 300);
  assert.equal(Math.round(a4.page.width), 3508);
  assert.ok(a4.cssWidth * a4.pixelRatio <= MAX_CANVAS_PX);
  const a3 = picturePlan({ kind: 'png', size: 'paper', paper: 'a3', orientation: 'landscape' }, screen, 1);
  assert.equal(a3.clamped, true);
  assert.ok(a3.dpi < 300 && a3.cssWidth * a3.pixelRatio <= MAX_CANVAS_PX + 1e-6);
  const pdf = picturePlan({ kind: 'pdf', paper: 'letter', orientation: 'portrait' }, screen, 1);
  assert.equal(pdf.unit, 1);
  assert.equal(pdf.page.width, 215.9);
  assert.equal(pdf.dpi, 200);
});

test('file names: the name without characters file systems refuse, and the day', () => {
  const day = new Date(2026, 10, 30, 23, 59);
  assert.equal(printFileName('Alps', day, 'png'), 'Alps 2026-11-30.png');
  assert.equal(printFileName('a/b: c*?', day, 'pdf'), 'a b c 2026-11-30.pdf');
  assert.equal(printFileName('  ', day, 'pdf'), 'map 2026-11-30.pdf');
  assert.equal(printFileName('Zürich — العربية', day, 'png'), 'Zürich — العربية 2026-11-30.png');
});

test('legend rows: one per item, plus one per entry of a classified layer', () => {
  const swatch = { label: 'x', color: '#f00' };
  assert.equal(legendRows([{ name: 'a', entries: [swatch] }]), 1);
  assert.equal(
    legendRows([
      { name: 'a', entries: [swatch, swatch, swatch] },
      { name: 'r', entries: [] },
    ]),
    5,
  );
});
