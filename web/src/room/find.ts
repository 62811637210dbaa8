import { Marker as Pin, type Map as MapLibreMap } from 'maplibre-gl';
import type { PartialLayer, Place, SearchResult } from '../api/types';
import { parseCoordinates } from '../map/coordinates';
import type { RoomContextValue } from './room-context';
import { fitExtent } from './zoom-to-content';
import { formatNumber, t } from '../i18n/index.js';

/** Where a choice of the search box goes. */
export type Target =
  | { kind: 'position'; lat: number; lon: number }
  | { kind: 'place'; lat: number; lon: number; bbox?: number[] }
  /** A layer searched only in part: its attribute table, filtered by the text (it pages through all of it). */
  | { kind: 'table'; layerId: string; q: string }
  | SearchResult;

export type Group = 'Coordinates' | 'Markers' | 'Drawings' | 'Features' | 'Places';

/** A group's heading, in the page's language. */
export function groupLabel(group: Group): string {
  switch (group) {
    case 'Coordinates':
      return t('room:find.groups.coordinates');
    case 'Markers':
      return t('room:find.groups.markers');
    case 'Drawings':
      return t('room:find.groups.drawings');
    case 'Features':
      return t('room:find.groups.features');
    case 'Places':
      return t('room:find.groups.places');
  }
}

/** A thing found without a title. */
function untitled(kind: SearchResult['kind']): string {
  switch (kind) {
    case 'marker':
      return t('room:find.untitled.marker');
    case 'drawing':
      return t('room:find.untitled.drawing');
    case 'feature':
      return t('room:find.untitled.feature');
  }
}

export interface Choice {
  group: Group;
  label: string;
  detail?: string;
  target: Target;
}

const GROUP_OF: Record<SearchResult['kind'], Group> = { marker: 'Markers', drawing: 'Drawings', feature: 'Features' };
const degrees = (value: number) => Number(value.toFixed(6)).toString();

/**
 * What the search box offers for a text, in its groups' order: a position typed, the room's
 * things (the Features group ending with the table of each layer searched only in part), places.
 */
export function choicesOf(
  text: string,
  results: SearchResult[],
  places: Place[],
  partialLayers: PartialLayer[] = [],
): Choice[] {
  const position = parseCoordinates(text);
  const choices: Choice[] = [];
  if (position)
    choices.push({
      group: 'Coordinates',
      label: `${degrees(position.lat)}, ${degrees(position.lon)}`,
      detail: t('room:find.latLon'),
      target: { kind: 'position', ...position },
    });
  const order: Group[] = ['Markers', 'Drawings', 'Features'];
  for (const group of order)
    for (const result of results.filter((r) => GROUP_OF[r.kind] === group))
      choices.push({ group, label: result.title || untitled(result.kind), detail: result.detail, target: result });
  for (const layer of partialLayers)
    choices.push({
      group: 'Features',
      label: t('room:find.searchAll', {
        count: layer.featureCount,
        features: formatNumber(layer.featureCount),
        layer: layer.name,
      }),
      detail: t('room:find.searched', { count: layer.searched, searched: formatNumber(layer.searched) }),
      target: { kind: 'table', layerId: layer.layerId, q: text },
    });
  for (const place of places) choices.push({ group: 'Places', label: place.name, target: { kind: 'place', ...place } });
  return choices;
}

/** A street-level view around a position without an extent. */
const POSITION_ZOOM = 15;
const PLACE_ZOOM = 12;

let pin: Pin | null = null;

/** Takes away the pin of the last position or place gone to. */
export function removePin() {
  pin?.remove();
  pin = null;
}

function showPin(map: MapLibreMap, lon: number, lat: number) {
  removePin();
  const element = document.createElement('div');
  element.className = 'search-pin';
  element.dataset.testid = 'search-pin';
  pin = new Pin({ element, anchor: 'bottom' }).setLngLat([lon, lat]).addTo(map);
}

/**
 * Goes to a choice: the map flies to a position or place (a pin marks it) or fits a thing's
 * extent, and a marker, drawing or feature is selected as a click selects it (its panel, a
 * feature's attributes and highlight); a layer's table opens filtered by the text.
 */
export function goTo(target: Target, room: RoomContextValue) {
  if (target.kind === 'table') {
    room.table.set({ layerId: target.layerId, q: target.q });
    return;
  }
  const map = room.map.get();
  if (!map) return;
  const fit = (bbox: number[]) => fitExtent(map, bbox as [number, number, number, number]);
  removePin();
  switch (target.kind) {
    case 'position':
      map.flyTo({ center: [target.lon, target.lat], zoom: Math.max(map.getZoom(), POSITION_ZOOM), duration: 600 });
      showPin(map, target.lon, target.lat);
      return;
    case 'place':
      if (target.bbox) fit(target.bbox);
      else map.flyTo({ center: [target.lon, target.lat], zoom: PLACE_ZOOM, duration: 600 });
      showPin(map, target.lon, target.lat);
      return;
    case 'marker':
    case 'drawing':
      fit(target.bbox);
      room.selection.set({ kind: target.kind, id: target.id });
      return;
    case 'feature':
      fit(target.bbox);
      room.selection.set({ kind: 'layer', id: target.layerId, featureId: target.id });
      return;
  }
}
