import { useEffect, useState } from 'preact/hooks';
import type { Map as MapLibreMap } from 'maplibre-gl';
import type { Colormap, Layer } from '../../api/types';
import { classBreaks, type ClassifyRule, nextLayerColor, rampColors } from '../../map/layer-style';
import { readColormaps } from '../actions/layers';

type Mode = 'single' | 'categories' | 'graduated';
const MAX_CATEGORIES = 100;
/** The most values read per field: enough for breaks and categories, bounded on a big layer. */
const MAX_VALUES = 20_000;

/**
 * Field names and values of a layer's features the map has loaded (its vector tiles in and around
 * view), each feature once: a feature crossing a tile's edge is loaded once per tile, and would
 * otherwise weigh twice in quantiles. Merged coverage polygons (no id, no fields) are skipped.
 */
export function loadedValues(map: MapLibreMap | null, layerId: string): Map<string, unknown[]> {
  const values = new Map<string, unknown[]>();
  if (!map?.getSource(`vector-${layerId}`)) return values;
  const seen = new Set<string | number>();
  for (const feature of map.querySourceFeatures(`vector-${layerId}`, { sourceLayer: 'features' })) {
    if (feature.id === undefined || seen.has(feature.id)) continue;
    seen.add(feature.id);
    for (const [name, value] of Object.entries(feature.properties ?? {})) {
      const list = values.get(name) ?? [];
      if (list.length < MAX_VALUES) list.push(value);
      values.set(name, list);
    }
  }
  return values;
}

/** Style by data: one colour, a colour per value of a field, or classes of a numeric field along a ramp; labels from a field. */
export function LayerStyleForm({
  layer,
  map,
  change,
}: {
  layer: Layer;
  map: MapLibreMap | null;
  change: (style: Partial<Layer['style']>) => unknown;
}) {
  const rule = layer.style.classify ?? null;
  const [mode, setMode] = useState<Mode>(rule?.type ?? 'single');
  const [field, setField] = useState(rule?.field ?? '');
  const [method, setMethod] = useState<'equal' | 'quantile'>(rule?.type === 'graduated' ? rule.method : 'quantile');
  const [ramp, setRamp] = useState(rule?.type === 'graduated' ? rule.ramp : 'viridis');
  const [classes, setClasses] = useState(rule?.type === 'graduated' ? rule.colors.length : 5);
  const [ramps, setRamps] = useState<Colormap[]>([]);
  const [fields, setFields] = useState<Map<string, unknown[]>>(new Map());
  useEffect(() => void readColormaps().then(setRamps, () => undefined), []);
  useEffect(() => {
    // Read again whenever the map settles: tiles come and go as the view moves.
    const read = () => setFields(loadedValues(map, layer.id));
    read();
    map?.on('idle', read);
    return () => void map?.off('idle', read);
  }, [map, layer.id]);
  const numeric = [...fields].filter(([, v]) => v.some((x) => typeof x === 'number')).map(([name]) => name);
  const names = mode === 'graduated' ? numeric : [...fields.keys()];

  const apply = (event: Event) => {
    event.preventDefault();
    if (mode === 'single') return change({ classify: null });
    const values = fields.get(field) ?? [];
    let next: ClassifyRule;
    if (mode === 'categories') {
      const distinct = [...new Set(values.map(String))].sort().slice(0, MAX_CATEGORIES);
      const used: string[] = [layer.style.color];
      const categories = distinct.map((value) => {
        const color = nextLayerColor(used);
        used.push(color);
        return { value, color };
      });
      next = { type: 'categories', field, categories, otherColor: '999999' };
    } else {
      const numbers = values.filter((x): x is number => typeof x === 'number');
      const breaks = classBreaks(numbers, classes, method);
      const stops = ramps.find((r) => r.name === ramp)?.stops ?? ['#440154', '#21918c', '#fde725'];
      next = { type: 'graduated', field, method, ramp, breaks, colors: rampColors(stops, breaks.length + 1) };
    }
    return change({ classify: next });
  };

  return (
    <form class="style-by-data" onSubmit={apply} aria-label="Style by data">
      <label>
        Colours{' '}
        <select value={mode} onChange={(e) => setMode(e.currentTarget.value as Mode)} name="style-mode">
          <option value="single">One colour</option>
          <option value="categories">Categories of a field</option>
          <option value="graduated">Classes of a number</option>
        </select>
      </label>
      {mode !== 'single' && (
        <label>
          Field{' '}
          <select value={field} onChange={(e) => setField(e.currentTarget.value)} name="style-field" required>
            <option value="">choose…</option>
            {names.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      )}
      {mode === 'graduated' && (
        <>
          <label>
            Method{' '}
            <select
              value={method}
              name="style-method"
              onChange={(e) => setMethod(e.currentTarget.value as 'equal' | 'quantile')}
            >
              <option value="quantile">Quantiles</option>
              <option value="equal">Equal intervals</option>
            </select>
          </label>
          <label>
            Classes{' '}
            <input
              type="number"
              name="style-classes"
              min={2}
              max={9}
              value={classes}
              onChange={(e) => setClasses(Number(e.currentTarget.value))}
            />
          </label>
          <label>
            Ramp{' '}
            <select value={ramp} onChange={(e) => setRamp(e.currentTarget.value)}>
              {ramps.map((r) => (
                <option key={r.name} value={r.name}>
                  {r.name}
                </option>
              ))}
            </select>
          </label>
        </>
      )}
      {mode !== 'single' && fields.size === 0 && <p class="muted">Zoom to the layer to read its fields.</p>}
      <button type="submit">Apply colours</button>
      <label>
        Labels{' '}
        <select
          value={layer.style.labelField ?? ''}
          onChange={(e) => change({ labelField: e.currentTarget.value || null })}
          name="label-field"
        >
          <option value="">none</option>
          {[...new Set([...fields.keys(), ...(layer.style.labelField ? [layer.style.labelField] : [])])].map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
    </form>
  );
}
