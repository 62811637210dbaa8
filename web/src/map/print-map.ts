import { Map as MapLibreMap, type StyleSpecification } from 'maplibre-gl';
import { authHeaders } from '../api/client';
import type { Deck, Slide } from '../api/types';
import { t } from '../i18n/index.js';
import { DeckContent } from './deck-content';
import { MAX_CANVAS_PX } from './print-layout';

/** Where a picture looks: as MapLibre's `jumpTo` takes it. */
export interface PrintView {
  center: [number, number];
  zoom: number;
  bearing: number;
  pitch: number;
}

/** A text the page shows over the map as HTML (a marker's title, a cluster's count, a drawing's label): where it is and what it says. */
export interface MapText {
  lngLat: [number, number];
  text: string;
  kind: 'title' | 'count' | 'label';
}

/** A map drawn off the page for a picture: its canvas (kept: `preserveDrawingBuffer`), its texts, its view. */
export interface RenderedMap {
  canvas: HTMLCanvasElement;
  texts: { x: number; y: number; text: string; kind: MapText['kind'] }[];
  zoom: number;
  latitude: number;
  bearing: number;
  attribution: string[];
  remove(): void;
}

/** The HTML texts the page shows on the map (they are not on MapLibre's canvas: docs/decisions.md, "Labels are HTML"). */
export function mapTexts(map: MapLibreMap): MapText[] {
  const container = map.getContainer();
  const box = container.getBoundingClientRect();
  const kinds: [string, MapText['kind']][] = [
    ['.marker-label, .feature-label', 'title'],
    ['.cluster-count', 'count'],
    ['.drawing-label', 'label'],
  ];
  return kinds.flatMap(([selector, kind]) =>
    [...container.querySelectorAll<HTMLElement>(selector)]
      .filter((element) => element.textContent && element.offsetParent !== null)
      .map((element) => {
        const rect = element.getBoundingClientRect();
        const at = map.unproject([rect.left + rect.width / 2 - box.left, rect.top + rect.height / 2 - box.top]);
        return { lngLat: [at.lng, at.lat] as [number, number], text: element.textContent!, kind };
      }),
  );
}

/** The live map's images (marker icons: `addImage`), which its style does not carry, for a map made from that style. */
export function mapImages(map: MapLibreMap) {
  return map.listImages().flatMap((id) => {
    const image = map.getImage(id);
    if (!image?.data) return [];
    const { width, height, data } = image.data;
    return [{ id, width, height, data: new Uint8Array(data), pixelRatio: image.pixelRatio, sdf: image.sdf }];
  });
}

/** The style's base map only (background, base layers and their sources): a slide adds its own content. */
export function baseOnly(style: StyleSpecification): StyleSpecification {
  const layers = style.layers.filter((l) => l.id === 'background' || /^base(-|$)/.test(l.id));
  const used = new Set(layers.flatMap((l) => ('source' in l && typeof l.source === 'string' ? [l.source] : [])));
  return {
    ...style,
    layers,
    sources: Object.fromEntries(Object.entries(style.sources).filter(([id]) => used.has(id))),
  };
}

/** The attribution texts of a style's sources (the base map's and the layers'), each once. */
export function attributionOf(style: StyleSpecification): string[] {
  const texts = Object.values(style.sources).flatMap((s) =>
    'attribution' in s && typeof s.attribution === 'string' && s.attribution ? [s.attribution] : [],
  );
  // The attribution may be HTML (a link): its text only.
  return [...new Set(texts.map((text) => new DOMParser().parseFromString(text, 'text/html').body.textContent ?? ''))]
    .map((text) => text.trim())
    .filter(Boolean);
}

export interface RenderOptions {
  style: StyleSpecification;
  images: ReturnType<typeof mapImages>;
  view: PrintView;
  cssWidth: number;
  cssHeight: number;
  pixelRatio: number;
  /** Texts to place over the map, from the live map (the room's); a slide's come from its own map. */
  texts?: MapText[];
  /** Runs once the style is loaded (a slide puts its content on the map). */
  prepare?: (map: MapLibreMap) => void;
}

/** How long a picture waits for its map to be idle (every tile in and drawn) before it is taken as it is. */
const SETTLE_MS = 20_000;

/**
 * Draws a map off the page at the wanted size and pixel ratio, from a style (the live map's:
 * the same sources, layers, markers and drawings) and its images; resolves once MapLibre is idle
 * (every tile in and drawn). A lost WebGL context or a map error before that rejects, in words.
 */
export function renderMap(options: RenderOptions): Promise<RenderedMap> {
  const container = document.createElement('div');
  container.className = 'print-stage';
  container.style.width = `${options.cssWidth}px`;
  container.style.height = `${options.cssHeight}px`;
  document.body.append(container);
  let map: MapLibreMap;
  try {
    map = new MapLibreMap({
      container,
      style: options.style,
      ...options.view,
      pixelRatio: options.pixelRatio,
      maxCanvasSize: [MAX_CANVAS_PX, MAX_CANVAS_PX],
      canvasContextAttributes: { preserveDrawingBuffer: true },
      interactive: false,
      attributionControl: false,
      fadeDuration: 0,
      transformRequest: (url: string) =>
        new URL(url, location.href).origin === location.origin ? { url, headers: authHeaders() } : { url },
    });
  } catch (error) {
    container.remove();
    return Promise.reject(new Error(t('print:errors.webgl', { message: String(error) })));
  }
  const remove = () => {
    map.remove();
    container.remove();
  };
  for (const image of options.images) {
    if (!map.hasImage(image.id))
      map.addImage(
        image.id,
        { width: image.width, height: image.height, data: image.data },
        { pixelRatio: image.pixelRatio, sdf: image.sdf },
      );
  }
  return new Promise<RenderedMap>((resolve, reject) => {
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      remove();
      reject(new Error(message));
    };
    map.once('webglcontextlost', () => fail(t('print:errors.contextLost')));
    // A tile that fails is drawn without (as on the page); a style that cannot load ends the picture.
    let styleLoaded = false;
    map.on('error', (event) => {
      if (!styleLoaded) fail(t('print:errors.webgl', { message: event.error?.message ?? '' }));
    });
    map.once('style.load', () => {
      styleLoaded = true;
      try {
        options.prepare?.(map);
      } catch (error) {
        fail(String(error));
        return;
      }
      const drawn = () => {
        if (settled) return;
        settled = true;
        clearTimeout(waited);
        const canvas = map.getCanvas();
        const ratio = canvas.width / options.cssWidth;
        const texts = [...(options.texts ?? []), ...mapTexts(map)].map((text) => {
          const point = map.project(text.lngLat);
          return { x: point.x * ratio, y: point.y * ratio, text: text.text, kind: text.kind };
        });
        resolve({
          canvas,
          texts: texts.filter((p) => p.x >= 0 && p.y >= 0 && p.x <= canvas.width && p.y <= canvas.height),
          zoom: map.getZoom(),
          latitude: map.getCenter().lat,
          bearing: map.getBearing(),
          attribution: attributionOf(map.getStyle()),
          remove,
        });
      };
      map.once('idle', drawn);
      // A map that never settles (a tile server that never answers) is drawn as it is by then.
      const waited = setTimeout(drawn, SETTLE_MS);
      map.triggerRepaint();
    });
  });
}

/** A slide of a deck drawn as the deck player shows it: the base map, then only its markers, drawings, layers and rasters. */
export function slidePrepare(deck: Deck, slide: Slide) {
  return (map: MapLibreMap) => void new DeckContent(map, { ...deck, slides: [slide] }, () => undefined);
}
