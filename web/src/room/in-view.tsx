import type { Map as MapLibreMap } from 'maplibre-gl';
import { useEffect, useState } from 'preact/hooks';
import type { Layer, Marker } from '../api/types';
import { orderedLayers } from '../map/layer-style';
import { useStore } from '../store';
import { useRoom } from './room-context';
import { shownState } from './time-view';
import { t } from '../i18n/index.js';

/** At most this many markers and this many features are listed; the rest are counted. */
const MAX_LISTED = 50;

interface Listed {
  key: string;
  name: string;
  select: () => void;
}

/** A feature's name: its layer's label field, else its first text, else its number. */
function featureName(layer: Layer, id: string | number | undefined, properties: Record<string, unknown>): string {
  const field = layer.style.labelField;
  const value = field ? properties[field] : Object.values(properties).find((v) => typeof v === 'string' && v !== '');
  return value === undefined || value === null || value === ''
    ? t('room:inView.feature', { id: id ?? '?' })
    : String(value);
}

/**
 * What the map shows, as lists a screen reader can go through and a keyboard can choose from:
 * the markers in view, then the features of the visible layers drawn in view (top layer first).
 * Read when it is opened and each time the map rests while it is open. It follows the map in the
 * page's order and is shown when it has the focus.
 */
export function InView() {
  const { map: mapStore, model, hidden, selection, timeView } = useRoom();
  const map = useStore(mapStore);
  const state = useStore(model);
  const view = useStore(timeView);
  const [open, setOpen] = useState(false);
  const [listed, setListed] = useState<{ markers: Listed[]; features: Listed[]; more: number }>({
    markers: [],
    features: [],
    more: 0,
  });
  useEffect(() => {
    if (!open || !map || !state) return;
    const read = () => {
      // What the map shows: the room now, or the moment the timeline shows.
      const shown = shownState(model.get()!, timeView.get(), Date.now());
      setListed(inView(map, shown.markers.values(), shown.layers, hidden.get(), (chosen) => selection.set(chosen)));
    };
    read();
    map.on('idle', read);
    return () => {
      map.off('idle', read);
    };
  }, [open, map, state, view]);
  const { markers, features, more } = listed;
  return (
    <section class="in-view" aria-label={t('room:inView.title')}>
      <details onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>{t('room:inView.title')}</summary>
        {open && (
          <div data-testid="in-view">
            <Listing items={markers} heading={(count) => t('room:inView.markers', { count })} />
            <Listing items={features} heading={(count) => t('room:inView.features', { count })} />
            {more > 0 && <p class="muted">{t('room:inView.more', { count: more })}</p>}
          </div>
        )}
      </details>
    </section>
  );
}

/** A heading with the count, then each item as a button that selects it. */
function Listing({ items, heading }: { items: Listed[]; heading: (count: number) => string }) {
  return (
    <>
      <h3>{heading(items.length)}</h3>
      <ul>
        {items.map((item) => (
          <li key={item.key}>
            <button type="button" class="link" onClick={item.select}>
              {item.name}
            </button>
          </li>
        ))}
      </ul>
    </>
  );
}

type Select = (selected: { kind: 'marker' | 'layer'; id: string; featureId?: number }) => void;

function inView(map: MapLibreMap, markers: Iterable<Marker>, layers: Layer[], hidden: Set<string>, select: Select) {
  const bounds = map.getBounds();
  let more = 0;
  const markerItems: Listed[] = [];
  for (const m of markers) {
    if (m.latitude == null || m.longitude == null || !bounds.contains([m.longitude, m.latitude])) continue;
    if (markerItems.length >= MAX_LISTED) {
      more++;
      continue;
    }
    markerItems.push({
      key: m.id,
      name: m.title || t('room:inView.untitledMarker'),
      select: () => select({ kind: 'marker', id: m.id }),
    });
  }
  const featureItems: Listed[] = [];
  for (const layer of orderedLayers(layers)) {
    if (!layer.style.visible || hidden.has(layer.id)) continue;
    const parts = ['fill', 'line', 'point']
      .map((part) => `vector-${layer.id}-${part}`)
      .filter((id) => map.getLayer(id));
    if (parts.length === 0) continue;
    const seen = new Set<string | number>();
    for (const feature of map.queryRenderedFeatures({ layers: parts })) {
      // A feature crossing tiles is drawn once per tile: listed once.
      if (feature.id === undefined || seen.has(feature.id)) continue;
      seen.add(feature.id);
      if (featureItems.length >= MAX_LISTED) {
        more++;
        continue;
      }
      const featureId = typeof feature.id === 'number' ? feature.id : undefined;
      featureItems.push({
        key: `${layer.id}/${feature.id}`,
        name: t('room:inView.featureOf', {
          layer: layer.name,
          feature: featureName(layer, feature.id, feature.properties),
        }),
        select: () => select({ kind: 'layer', id: layer.id, ...(featureId !== undefined && { featureId }) }),
      });
    }
  }
  return { markers: markerItems, features: featureItems, more };
}
