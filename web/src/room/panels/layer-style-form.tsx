import { useEffect, useState } from 'preact/hooks';
import type { Map as MapLibreMap } from 'maplibre-gl';
import type { Colormap, Layer } from '../../api/types';
import { categoriesOf, classBreaks, type ClassifyRule, coloursInUse, rampColors } from '../../map/layer-style';
import { useRoom } from '../room-context';
import { readColormaps } from '../actions/layers';
import { NumberField, SelectField } from '../../ui/fields';
import { t } from '../../i18n/index.js';

type Mode = 'single' | 'categories' | 'graduated';
type Method = 'equal' | 'quantile';
/** The ways to colour a layer, in words of the page's language (read at render time). */
const modes = (): [Mode, string][] => [
  ['single', t('layers:style.modeSingle')],
  ['categories', t('layers:style.modeCategories')],
  ['graduated', t('layers:style.modeGraduated')],
];
const methods = (): [Method, string][] => [
  ['quantile', t('layers:style.methodQuantile')],
  ['equal', t('layers:style.methodEqual')],
];
/** Choices whose words are their values (field names, ramps). */
const named = (values: Iterable<string>) => [...values].map((value) => [value, value] as const);
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
  const { model } = useRoom();
  const rule = layer.style.classify ?? null;
  const [mode, setMode] = useState<Mode>(rule?.type ?? 'single');
  const [field, setField] = useState(rule?.field ?? '');
  const [method, setMethod] = useState<Method>(rule?.type === 'graduated' ? rule.method : 'quantile');
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
  const labelFields = new Set([...fields.keys(), ...(layer.style.labelField ? [layer.style.labelField] : [])]);

  const apply = (event: Event) => {
    event.preventDefault();
    if (mode === 'single') return change({ classify: null });
    const values = fields.get(field) ?? [];
    let next: ClassifyRule;
    if (mode === 'categories') {
      const distinct = [...new Set(values.map(String))].sort().slice(0, MAX_CATEGORIES);
      const others = model.get()!.layers.filter((l) => l.id !== layer.id);
      const categories = categoriesOf(distinct, [layer.style.color, ...coloursInUse(others)]);
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
    <form class="style-by-data" onSubmit={apply} aria-label={t('layers:style.byData')}>
      <SelectField
        label={t('layers:style.colours')}
        value={mode}
        options={modes()}
        onChange={(chosen) => setMode(chosen as Mode)}
        name="style-mode"
      />
      {mode !== 'single' && (
        <SelectField
          label={t('layers:style.field')}
          value={field}
          options={[['', t('layers:style.choose')], ...named(names)]}
          onChange={setField}
          name="style-field"
          required
        />
      )}
      {mode === 'graduated' && (
        <>
          <SelectField
            label={t('layers:style.method')}
            value={method}
            options={methods()}
            name="style-method"
            onChange={(chosen) => setMethod(chosen as Method)}
          />
          <NumberField
            label={t('layers:style.classes')}
            name="style-classes"
            min={2}
            max={9}
            value={classes}
            onInput={setClasses}
          />
          <SelectField
            label={t('layers:style.ramp')}
            value={ramp}
            options={named(ramps.map((r) => r.name))}
            onChange={setRamp}
          />
        </>
      )}
      {mode !== 'single' && fields.size === 0 && <p class="muted">{t('layers:style.zoomToRead')}</p>}
      <button type="submit">{t('layers:style.apply')}</button>
      <SelectField
        label={t('layers:style.labels')}
        value={layer.style.labelField ?? ''}
        options={[['', t('layers:style.none')], ...named(labelFields)]}
        onChange={(chosen) => change({ labelField: chosen || null })}
        name="label-field"
      />
    </form>
  );
}
