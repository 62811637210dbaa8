import { invalidField } from '../../errors.js';
import type { RoomBasemap } from './rooms.schemas.js';

/** The placeholders each kind of address must hold (one of each group). */
const PLACEHOLDERS: Record<RoomBasemap['type'], string[][]> = {
  xyz: [['{z}'], ['{x}'], ['{y}', '{-y}']],
  wmts: [['{TileMatrix}'], ['{TileRow}'], ['{TileCol}']],
  wms: [],
};

/**
 * What the schema cannot say about a room's base maps: an address a browser may fetch
 * (http or https, no user or password in it), the placeholders of its kind, `layers` for WMS
 * only, and ids unique in the list. Throws 400 naming the field of the first problem.
 */
export function checkBasemaps(basemaps: RoomBasemap[]): void {
  const seen = new Map<string, number>();
  basemaps.forEach((basemap, i) => {
    const field = (name: string) => `body.basemaps.${i}.${name}`;
    const first = seen.get(basemap.id);
    if (first !== undefined) throw invalidField(field('id'), `repeats the id of basemaps.${first}`);
    seen.set(basemap.id, i);
    let url: URL;
    try {
      url = new URL(basemap.url);
    } catch {
      throw invalidField(field('url'), 'must be an http or https address');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw invalidField(field('url'), 'must be an http or https address');
    if (url.username || url.password) throw invalidField(field('url'), 'must not hold a user name or password');
    for (const group of PLACEHOLDERS[basemap.type]) {
      if (!group.some((placeholder) => basemap.url.includes(placeholder)))
        throw invalidField(field('url'), `must hold ${group.join(' or ')} (a ${basemap.type} template)`);
    }
    if (basemap.type === 'wms' && basemap.layers === undefined)
      throw invalidField(field('layers'), 'is required for a wms base map');
    if (basemap.type !== 'wms' && basemap.layers !== undefined)
      throw invalidField(field('layers'), 'is only for a wms base map');
  });
}

/** The room's base maps as stored (JSON text; null: none). */
export function basemapsOf(stored: string | null): RoomBasemap[] {
  return stored ? (JSON.parse(stored) as RoomBasemap[]) : [];
}

/** The list as stored: trimmed names, null for none. */
export function storedBasemaps(basemaps: RoomBasemap[]): string | null {
  if (basemaps.length === 0) return null;
  return JSON.stringify(basemaps.map((basemap) => ({ ...basemap, name: basemap.name.trim() })));
}
