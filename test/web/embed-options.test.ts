/** The embed page's address: read leniently, written back the same (web/src/embed-options.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_CONTROLS, embedAddress, embedOptionsOf, iframeCode } from '../../web/src/embed-options.js';

const KEY = `mre_${'a'.repeat(43)}`;

test('an address with every option is read whole', () => {
  const options = embedOptionsOf(
    `?view=46.95,7.45,12.5&layers=layer-a,raster-b&basemap=carto&controls=zoom,legend,time&interactive=0&key=${KEY}`,
  );
  assert.deepEqual(options, {
    view: { lat: 46.95, lng: 7.45, zoom: 12.5 },
    layers: ['layer-a', 'raster-b'],
    basemap: 'carto',
    controls: new Set(['zoom', 'legend', 'time']),
    interactive: false,
    key: KEY,
  });
});

test('what cannot be read is left at its default', () => {
  const options = embedOptionsOf(
    '?view=91,7,3&layers=,&basemap=<b>&controls=zoom,explode&key=mrt_secret&interactive=yes',
  );
  assert.equal(options.view, null, 'a latitude past 90');
  assert.equal(options.layers, null);
  assert.equal(options.basemap, null);
  assert.deepEqual(options.controls, new Set(['zoom']), 'unknown controls are dropped');
  assert.equal(options.key, null, 'only an embed key');
  assert.equal(options.interactive, true);
  assert.deepEqual(embedOptionsOf('').controls, new Set(DEFAULT_CONTROLS));
  assert.deepEqual(embedOptionsOf('?controls=').controls, new Set(), 'an empty list shows no controls');
  assert.equal(embedOptionsOf('?view=1,2').view, null);
  assert.equal(embedOptionsOf('?view=a,b,c').view, null);
});

test('the share dialog writes what the page reads back', () => {
  const written = {
    view: { lat: 46.951234567, lng: 7.451234567, zoom: 12.3456 },
    layers: ['layer-a'],
    basemap: 'osm',
    controls: new Set(['fullscreen', 'zoom'] as const),
    interactive: false,
    key: KEY,
  };
  const address = embedAddress('https://maps.example.org', 'team-map01', written);
  assert.equal(
    address,
    `https://maps.example.org/e/team-map01?view=46.95123,7.45123,12.35&layers=layer-a&basemap=osm&controls=zoom,fullscreen&interactive=0&key=${KEY}`,
  );
  const read = embedOptionsOf(new URL(address).search);
  assert.deepEqual(read.layers, ['layer-a']);
  assert.deepEqual(read.controls, new Set(['zoom', 'fullscreen']));
  assert.equal(embedAddress('https://m.example', 'team-map01', {}, true), 'https://m.example/e/team-map01/deck');
});

test('the iframe code escapes what it quotes', () => {
  const code = iframeCode('https://m.example/e/team-map01?a=1&b="2"', 'Flood <risk> "map"');
  assert.match(code, /src="https:\/\/m\.example\/e\/team-map01\?a=1&amp;b=&quot;2&quot;"/);
  assert.match(code, /title="Flood &lt;risk> &quot;map&quot;"/);
});
