import type { StyleSpecification } from 'maplibre-gl';
import { t } from '../i18n/index.js';

export interface BaseLayer {
  id: string;
  name: string;
  tiles: string | null;
  attribution: string;
  /** The service's offline map (TopoJSON of land and countries) the page draws itself. */
  vector?: string;
  /** Rows counted from the south (a room's xyz base map with `{-y}`). */
  scheme?: 'tms';
}

/** The base layers this install offers (written into the page by the service). */
export function baseLayers(): BaseLayer[] {
  const element = document.getElementById('maproom-config');
  const config = element ? (JSON.parse(element.textContent ?? '{}') as { baseLayers?: BaseLayer[] }) : {};
  return config.baseLayers?.length
    ? config.baseLayers.map((layer) => ({ ...layer, name: builtinName(layer.id) ?? layer.name }))
    : [{ id: 'blank', name: t('room:baseMap.blank'), tiles: null, attribution: '' }];
}

/** The page's own words for the base layers the service names in English (proper names stay). */
function builtinName(id: string): string | undefined {
  switch (id) {
    case 'offline':
      return t('room:baseMap.offline');
    case 'blank':
      return t('room:baseMap.blank');
    case 'own':
      return t('room:baseMap.own');
    case 'carto':
      return t('room:baseMap.cartoLight');
    case 'satellite':
      return t('room:baseMap.satellite');
    case 'swisstopo':
      return t('room:baseMap.swisstopo');
    default:
      return undefined;
  }
}

/** The base layer to show for a room's or slide's choice: that one when offered, else the first. */
export function baseLayerFor(id: string | null | undefined): BaseLayer {
  const offered = baseLayers();
  return offered.find((layer) => layer.id === id) ?? offered[0]!;
}

/** The colour under every map's base layer and content. */
export const backgroundColor = (theme: string | null | undefined) => (theme === 'dark' ? '#1d2026' : '#eef0ee');

/** A MapLibre style with only a background; BaseMap (base-map.ts) adds the base layer, the room its content on top. */
export function baseStyle(theme: string | null | undefined): StyleSpecification {
  const background = backgroundColor(theme);
  return {
    version: 8,
    sources: {},
    layers: [{ id: 'background', type: 'background', paint: { 'background-color': background } }],
  };
}
