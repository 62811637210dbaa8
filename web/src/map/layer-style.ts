// `.js`: test/web/layer-style.test.ts imports this file, type-checked under NodeNext.
import type { Layer } from '../api/types.js';
import { t } from '../i18n/index.js';

/** A vector layer's style as stored; its data-driven rule, when it has one. */
export type LayerStyle = Layer['style'];
export type ClassifyRule = NonNullable<LayerStyle['classify']>;

/**
 * Layers in the room's shared order, top first: those without a `style.order` (added since the
 * order was last set) on top, the newest first (the service lists layers oldest first); then
 * `style.order` ascending (0 on top).
 */
export function orderedLayers(layers: Layer[]): Layer[] {
  return layers
    .map((layer, index) => ({ layer, key: layer.style.order ?? -1, index }))
    .sort((a, b) => a.key - b.key || (a.key === -1 ? b.index - a.index : a.index - b.index))
    .map((entry) => entry.layer);
}

/** `layer` moved to `to` in `order`: the whole list renumbered 0.. (the style keys to send, per layer whose place changed). */
export function reordered(order: Layer[], layerId: string, to: number): { id: string; order: number }[] {
  const ids = order.map((l) => l.id).filter((id) => id !== layerId);
  ids.splice(Math.max(0, Math.min(to, ids.length)), 0, layerId);
  return ids
    .map((id, order) => ({ id, order }))
    .filter(({ id, order: place }) => order.find((l) => l.id === id)!.style.order !== place);
}

/** The MapLibre colour of a layer's features: one colour, a `match` on a field's text, or a `step` on its number. */
export function colorExpression(style: LayerStyle, base = style.color): unknown {
  const rule = style.classify;
  if (!rule) return `#${base}`;
  if (rule.type === 'categories') {
    if (rule.categories.length === 0) return `#${rule.otherColor}`;
    const seen = new Set<string>();
    const pairs = rule.categories.filter((c) => !seen.has(c.value) && seen.add(c.value));
    return [
      'match',
      ['to-string', ['get', rule.field]],
      ...pairs.flatMap((c) => [c.value, `#${c.color}`]),
      `#${rule.otherColor}`,
    ];
  }
  const steps: unknown[] = ['step', ['to-number', ['get', rule.field], 0], `#${rule.colors[0]}`];
  let last = Number.NEGATIVE_INFINITY;
  rule.breaks.forEach((limit, i) => {
    if (limit <= last) return; // MapLibre needs strictly ascending stops
    last = limit;
    steps.push(limit, `#${rule.colors[Math.min(i + 1, rule.colors.length - 1)]}`);
  });
  return steps;
}

/**
 * How a vector layer is drawn, from its stored style: the paint of its fill, line and circle
 * layers, as MapLibre takes it (room-layers.ts) and as the deck's first-slide preview draws it
 * (slide-preview.ts, which works its expressions out per feature with `evaluate`): a change of
 * style is made here, once, for both.
 */
export function vectorLayerPaint(style: LayerStyle) {
  const fill = colorExpression(style, style.fillColor ?? style.color);
  return {
    fill: { 'fill-color': fill, 'fill-opacity': style.fillOpacity * style.opacity },
    line: { 'line-color': colorExpression(style), 'line-opacity': style.opacity, 'line-width': style.strokeWeight },
    point: {
      'circle-color': fill,
      'circle-opacity': style.opacity,
      'circle-radius': Math.max(3, style.strokeWeight + 2),
    },
  };
}

/**
 * The value MapLibre gives one feature (its `properties`) from a paint expression of the
 * content's styles (`colorExpression`, `vectorLayerPaint`, content-style.ts's drawings), worked
 * out here for what draws without MapLibre (the deck's first-slide preview): literals, `get`,
 * `coalesce`, `*`, `match` on the field as text (the first label of a value winning), `step`
 * on it as a number (`to-number`: 0 when it is not one).
 */
export function evaluate(expression: unknown, properties: Record<string, unknown>): unknown {
  if (!Array.isArray(expression)) return expression;
  const [operator, ...args] = expression as [string, ...unknown[]];
  const at = (i: number) => evaluate(args[i], properties);
  switch (operator) {
    case 'get':
      return properties[args[0] as string] ?? null;
    case 'coalesce':
      for (let i = 0; i < args.length; i++) {
        const value = at(i);
        if (value !== null && value !== undefined) return value;
      }
      return null;
    case '*':
      return args.reduce((product: number, _, i) => product * Number(at(i)), 1);
    case 'to-string': {
      const value = at(0);
      return value === null || value === undefined ? '' : String(value);
    }
    case 'to-number': {
      const number = Number(at(0) ?? 0);
      return Number.isNaN(number) ? (args.length > 1 ? at(1) : 0) : number;
    }
    case 'match': {
      const input = at(0);
      for (let i = 1; i + 1 < args.length; i += 2) if (args[i] === input) return at(i + 1);
      return at(args.length - 1);
    }
    case 'step': {
      const input = Number(at(0));
      let output = at(1);
      for (let i = 2; i + 1 < args.length; i += 2) if (input >= (args[i] as number)) output = at(i + 1);
      return output;
    }
    default:
      throw new Error(`not an expression of the content's styles: ${operator}`);
  }
}

/** The colour MapLibre gives one feature from `colorExpression(style, base)` (`evaluate`). */
export function featureColor(style: LayerStyle, properties: Record<string, unknown>, base = style.color): string {
  return evaluate(colorExpression(style, base), properties) as string;
}

/** Legend rows of a layer: one swatch for a single colour, else one per category or class. */
export function legendEntries(style: LayerStyle): { label: string; color: string }[] {
  const rule = style.classify;
  if (!rule) return [{ label: '', color: `#${style.fillColor ?? style.color}` }];
  if (rule.type === 'categories')
    return [
      ...rule.categories.map((c) => ({ label: c.value, color: `#${c.color}` })),
      { label: t('room:legend.other'), color: `#${rule.otherColor}` },
    ];
  const fmt = (n: number) => String(Number(n.toPrecision(4)));
  return rule.colors.map((color, i) => ({
    label:
      i === 0
        ? `< ${fmt(rule.breaks[0]!)}`
        : i >= rule.breaks.length
          ? `≥ ${fmt(rule.breaks[rule.breaks.length - 1]!)}`
          : `${fmt(rule.breaks[i - 1]!)} – ${fmt(rule.breaks[i]!)}`,
    color: `#${color}`,
  }));
}

/** Class limits of numbers: `classes - 1` breaks, equal intervals of the range or quantiles. */
export function classBreaks(values: number[], classes: number, method: 'equal' | 'quantile'): number[] {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0 || classes < 2) return [0];
  const min = sorted[0]!;
  const max = sorted[sorted.length - 1]!;
  const breaks: number[] = [];
  for (let i = 1; i < classes; i++) {
    breaks.push(
      method === 'equal'
        ? min + ((max - min) * i) / classes
        : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * i) / classes))]!,
    );
  }
  return [...new Set(breaks)];
}

/**
 * Stops lighter than this (relative luminance, 0 black to 1 white) are left out of a layer's
 * classes: a near-white class would vanish on a light base map (its contrast with white is under
 * 1.3:1).
 */
const MAX_CLASS_LUMINANCE = 0.75;

/**
 * `count` colours evenly along a ramp's stops (CSS colours as `#rrggbb` or `rgb(...)`), blended
 * between neighbouring stops, as hex without `#`; the ramp's near-white stops are left out (when
 * at least two stops remain).
 */
export function rampColors(stops: string[], count: number): string[] {
  const all = stops.map(toRgb);
  const legible = all.filter((rgb) => luminance(rgb) <= MAX_CLASS_LUMINANCE);
  const ramp = legible.length >= 2 ? legible : all.length > 0 ? all : [[136, 136, 136] as Rgb];
  return Array.from({ length: count }, (_, i) => {
    const at = (i * (ramp.length - 1)) / Math.max(1, count - 1);
    const low = ramp[Math.floor(at)]!;
    const high = ramp[Math.min(ramp.length - 1, Math.ceil(at))]!;
    const t = at - Math.floor(at);
    const blend = (c: number, k: number) => Math.round(c + (high[k]! - c) * t);
    return low.map((c, k) => blend(c, k).toString(16).padStart(2, '0')).join('');
  });
}

type Rgb = [number, number, number];

function toRgb(css: string): Rgb {
  if (css.startsWith('#')) return [1, 3, 5].map((i) => Number.parseInt(css.slice(i, i + 2), 16)) as Rgb;
  return (css.match(/\d+/g)?.slice(0, 3).map(Number) ?? [136, 136, 136]) as Rgb;
}

/** WCAG's relative luminance of an sRGB colour. */
function luminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Distinct colours for new layers: the first of these no layer of the room uses yet. */
export const LAYER_PALETTE = [
  'e6194b',
  '3cb44b',
  '4363d8',
  'f58231',
  '911eb4',
  '42d4f4',
  'f032e6',
  '9a6324',
  '469990',
  '808000',
];

export function nextLayerColor(used: string[]): string {
  const taken = new Set(used.map((c) => c.toLowerCase()));
  return LAYER_PALETTE.find((c) => !taken.has(c)) ?? LAYER_PALETTE[used.length % LAYER_PALETTE.length]!;
}

/** Every colour the layers draw with: their own colour and their categories' (a graduated ramp is a ramp of its own). */
export function coloursInUse(layers: Layer[]): string[] {
  return layers.flatMap((layer) => [
    layer.style.color,
    ...(layer.style.classify?.type === 'categories' ? layer.style.classify.categories.map((c) => c.color) : []),
  ]);
}

/**
 * A colour for each value of a field, from the palette: first the colours no layer of the room
 * draws with (`inUse`), so that a category is not mistaken for another layer; then again from
 * the start once the palette is spent.
 */
export function categoriesOf(values: string[], inUse: string[]): { value: string; color: string }[] {
  const used = [...inUse];
  return values.map((value) => {
    const color = nextLayerColor(used);
    used.push(color);
    return { value, color };
  });
}
