import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapedText, firstTile, roomBaseLayer, wmsTemplate } from '../../web/src/map/room-basemaps.js';

// A room's own base maps as the page draws them (docs/decisions.md, Room base maps).
const base = { id: 'a', name: 'A', attribution: '© A <b>' };

test('an xyz template is drawn as it is; {-y} is a TMS scheme; the id is apart from the install ids', () => {
  const xyz = roomBaseLayer({ ...base, type: 'xyz', url: 'https://t.example.org/{z}/{x}/{y}.png' });
  assert.deepEqual(xyz, {
    id: 'room:a',
    name: 'A',
    attribution: '© A &#60;b&#62;',
    tiles: 'https://t.example.org/{z}/{x}/{y}.png',
  });
  const tms = roomBaseLayer({ ...base, type: 'xyz', url: 'https://t.example.org/{z}/{x}/{-y}.png' });
  assert.deepEqual([tms.tiles, tms.scheme], ['https://t.example.org/{z}/{x}/{y}.png', 'tms']);
});

test("a WMTS RESTful template's TileMatrix, TileRow and TileCol are z, y and x", () => {
  const url = 'https://w.example.org/1.0.0/ortho/default/3857/{TileMatrix}/{TileRow}/{TileCol}.jpeg';
  assert.equal(
    roomBaseLayer({ ...base, type: 'wmts', url }).tiles,
    'https://w.example.org/1.0.0/ortho/default/3857/{z}/{y}/{x}.jpeg',
  );
});

test("a WMS address is asked GetMap 1.3.0 tiles by bbox; the address's own GetMap parameters give way", () => {
  assert.equal(
    wmsTemplate('https://m.example.org/wms?map=geo&request=GetCapabilities&SERVICE=WMS', 'units, faults '),
    'https://m.example.org/wms?map=geo&SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=units%2C%20faults&STYLES=' +
      '&CRS=EPSG:3857&BBOX={bbox-epsg-3857}&WIDTH=256&HEIGHT=256&FORMAT=image/png&TRANSPARENT=true',
  );
  const wms = roomBaseLayer({ ...base, type: 'wms', url: 'https://m.example.org/wms', layers: 'x' });
  assert.match(firstTile(wms.tiles!), /BBOX=-20037508\.\d+,-20037508\.\d+,20037508\.\d+,20037508\.\d+&/);
});

test('attribution is text: MapLibre would read it as HTML', () => {
  assert.equal(
    escapedText(`<img src=x onerror="a('b')">&`),
    '&#60;img src=x onerror=&#34;a(&#39;b&#39;)&#34;&#62;&#38;',
  );
});
