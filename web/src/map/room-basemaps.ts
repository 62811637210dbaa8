// `.js`: test/web/room-basemaps.test.ts imports this file, type-checked under NodeNext.
import type { Room } from '../api/types.js';
import type { BaseLayer } from './base-layers.js';

/** A room's own base map, as the room's answers list it (PATCH /api/rooms/{roomId}/basemaps). */
export type RoomBasemap = Room['basemaps'][number];

/** The menu's id of a room's base map: apart from the install's own ids (`osm`, `offline`, ...). */
export const roomLayerId = (id: string) => `room:${id}`;

/** The GetMap parameters the page sets itself; the address's own of the same names are dropped. */
const WMS_PARAMS = [
  'service',
  'version',
  'request',
  'layers',
  'styles',
  'crs',
  'srs',
  'bbox',
  'width',
  'height',
  'format',
  'transparent',
];

/**
 * A WMS address as a tile template: GetMap 1.3.0 in EPSG:3857 for MapLibre's
 * `{bbox-epsg-3857}`, 256 px transparent PNGs. The address's other parameters (`map=...`) stay.
 */
export function wmsTemplate(url: string, layers: string): string {
  const [base, query = ''] = url.split('?', 2) as [string, string?];
  const kept = query.split('&').filter((part) => part && !WMS_PARAMS.includes(part.split('=')[0]!.toLowerCase()));
  const getMap = [
    'SERVICE=WMS',
    'VERSION=1.3.0',
    'REQUEST=GetMap',
    `LAYERS=${encodeURIComponent(layers.trim())}`,
    'STYLES=',
    'CRS=EPSG:3857',
    'BBOX={bbox-epsg-3857}',
    'WIDTH=256',
    'HEIGHT=256',
    'FORMAT=image/png',
    'TRANSPARENT=true',
  ];
  return `${base}?${[...kept, ...getMap].join('&')}`;
}

/** Attribution as text: MapLibre writes a source's attribution as HTML, a room's is plain text. */
export const escapedText = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A room's base map as a layer of the menu: an xyz template as it is (`{-y}`: a TMS scheme);
 * a WMTS RESTful template's `{TileMatrix}/{TileRow}/{TileCol}` as z/y/x (a GoogleMapsCompatible
 * matrix set); a WMS as GetMap tiles.
 */
export function roomBaseLayer(basemap: RoomBasemap): BaseLayer {
  const layer = { id: roomLayerId(basemap.id), name: basemap.name, attribution: escapedText(basemap.attribution) };
  switch (basemap.type) {
    case 'xyz':
      return basemap.url.includes('{-y}')
        ? { ...layer, tiles: basemap.url.replaceAll('{-y}', '{y}'), scheme: 'tms' }
        : { ...layer, tiles: basemap.url };
    case 'wmts':
      return {
        ...layer,
        tiles: basemap.url
          .replaceAll('{TileMatrix}', '{z}')
          .replaceAll('{TileRow}', '{y}')
          .replaceAll('{TileCol}', '{x}'),
      };
    case 'wms':
      return { ...layer, tiles: wmsTemplate(basemap.url, basemap.layers ?? '') };
  }
}

/** The URL of a template's first tile (z0): what the page asks a server before drawing it. */
export function firstTile(tiles: string): string {
  const world = 20037508.342789244;
  return tiles
    .replaceAll('{z}', '0')
    .replaceAll('{x}', '0')
    .replaceAll('{y}', '0')
    .replaceAll('{bbox-epsg-3857}', `${-world},${-world},${world},${world}`);
}
