/**
 * What an embed page's address asks for (`/e/:roomId?view=&layers=&basemap=&controls=&interactive=&key=`),
 * read leniently: a part that cannot be read is left at its default, so a hand-edited address
 * still shows the map. The share dialog writes these addresses (`embedAddress`).
 */

export const EMBED_CONTROLS = ['zoom', 'layers', 'legend', 'search', 'time', 'fullscreen'] as const;
export type EmbedControl = (typeof EMBED_CONTROLS)[number];

/** The controls an embed shows when its address names none: moving around, and full screen. */
export const DEFAULT_CONTROLS: EmbedControl[] = ['zoom', 'fullscreen'];

export interface EmbedView {
  lat: number;
  lng: number;
  zoom: number;
}

export interface EmbedOptions {
  /** The starting view; none: the room's own. */
  view: EmbedView | null;
  /** The layers shown (ids); none: those the room shows. */
  layers: string[] | null;
  /** The base map's id; none: the room's own. */
  basemap: string | null;
  controls: Set<EmbedControl>;
  /** Whether the map can be moved, zoomed and clicked. */
  interactive: boolean;
  /** The embed key of a private room (`mre_...`). */
  key: string | null;
}

const ID = /^[A-Za-z0-9_-]{1,100}$/;

function viewOf(text: string | null): EmbedView | null {
  const parts = text?.split(',').map(Number);
  if (parts?.length !== 3 || parts.some((n) => !Number.isFinite(n))) return null;
  const [lat, lng, zoom] = parts as [number, number, number];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180 || zoom < 0 || zoom > 24) return null;
  return { lat, lng, zoom };
}

export function embedOptionsOf(search: string): EmbedOptions {
  const query = new URLSearchParams(search);
  const list = (name: string) =>
    query
      .get(name)
      ?.split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
  const layers = list('layers')?.filter((id) => ID.test(id));
  const named = list('controls');
  const controls = named
    ? named.filter((c): c is EmbedControl => EMBED_CONTROLS.includes(c as EmbedControl))
    : DEFAULT_CONTROLS;
  const basemap = query.get('basemap');
  const key = query.get('key');
  return {
    view: viewOf(query.get('view')),
    layers: layers && layers.length > 0 ? layers : null,
    basemap: basemap && ID.test(basemap) ? basemap : null,
    controls: new Set(controls),
    interactive: query.get('interactive') !== '0',
    key: key && /^mre_[A-Za-z0-9_-]{20,100}$/.test(key) ? key : null,
  };
}

/** The embed page's address for these options, as the share dialog writes it (defaults left out). */
export function embedAddress(origin: string, roomId: string, options: Partial<EmbedOptions>, deck = false): string {
  const query = new URLSearchParams();
  const round = (n: number, digits: number) => String(Math.round(n * 10 ** digits) / 10 ** digits);
  if (options.view)
    query.set('view', [round(options.view.lat, 5), round(options.view.lng, 5), round(options.view.zoom, 2)].join(','));
  if (options.layers?.length) query.set('layers', options.layers.join(','));
  if (options.basemap) query.set('basemap', options.basemap);
  if (options.controls) query.set('controls', EMBED_CONTROLS.filter((c) => options.controls!.has(c)).join(','));
  if (options.interactive === false) query.set('interactive', '0');
  if (options.key) query.set('key', options.key);
  const text = query.toString().replace(/%2C/g, ',');
  return `${origin}/e/${roomId}${deck ? '/deck' : ''}${text ? `?${text}` : ''}`;
}

/** The `<iframe>` a page pastes to show the embed. */
export function iframeCode(address: string, title: string, width = '100%', height = 480): string {
  const quoted = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<iframe src="${quoted(address)}" title="${quoted(title)}" width="${width}" height="${height}" style="border:0" allow="fullscreen" loading="lazy"></iframe>`;
}
