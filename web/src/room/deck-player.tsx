import { useEffect, useRef, useState } from 'preact/hooks';
import type { Map as MapLibreMap } from 'maplibre-gl';
import type { Deck, Layer, Slide } from '../api/types';
import { setBaseLayer } from '../map/create-map';
import { fitView } from '../map/slide-fit';
import { t } from '../i18n/index.js';
import { legendItems } from '../map/print-layout';
import { PrintDialog } from './print-dialog';

/**
 * Presents slides full screen over a map: each slide flies the map to its view (an animated
 * transition; none when the map is there already); arrow keys, space and the buttons move,
 * Escape ends. Each view is fitted to this screen (the area framed where the slide was made shows
 * whole). `onShow` hears each slide as it comes (the public deck shows its objects).
 */
export function DeckPlayer({
  map,
  slides,
  onClose,
  onShow,
  deck,
}: {
  map: MapLibreMap;
  slides: Slide[];
  onClose?: () => void;
  onShow?: (slide: Slide) => void;
  /** The deck, to print ("Print / export": a PDF has one page per slide). */
  deck?: Deck;
}) {
  const [index, setIndex] = useState(0);
  const [printing, setPrinting] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const slide = slides[index];
  useEffect(() => {
    if (!slide) return;
    const { clientWidth, clientHeight } = map.getContainer();
    const { lat, lng, zoom, bearing, pitch } = fitView(slide.view, clientWidth, clientHeight);
    if (slide.baseLayer) setBaseLayer(map, slide.baseLayer, null);
    onShow?.(slide);
    const target = { center: [lng, lat] as [number, number], zoom, bearing: bearing ?? 0, pitch: pitch ?? 0 };
    if (!isAt(map, target)) map.flyTo({ ...target, duration: 2000, essential: true });
  }, [index, slide?.id]);
  useEffect(() => {
    const container = map.getContainer().parentElement!;
    if (onClose && document.fullscreenEnabled && !document.fullscreenElement)
      container.requestFullscreen().catch(() => undefined);
    const key = (event: KeyboardEvent) => {
      if (event.key === 'ArrowRight' || event.key === ' ' || event.key === 'PageDown')
        setIndex((i) => Math.min(slides.length - 1, i + 1));
      else if (event.key === 'ArrowLeft' || event.key === 'PageUp') setIndex((i) => Math.max(0, i - 1));
      else if (event.key === 'Escape') close();
    };
    const close = () => {
      if (document.fullscreenElement) void document.exitFullscreen();
      onClose?.();
    };
    addEventListener('keydown', key);
    root.current?.focus();
    return () => removeEventListener('keydown', key);
  }, [slides.length]);
  if (!slide)
    return (
      <div class="deck-caption">
        <p>{t('room:deck.noSlides')}</p>
      </div>
    );
  return (
    <div
      class="deck-caption"
      ref={root}
      tabIndex={-1}
      role="region"
      aria-roledescription="slide"
      aria-label={t('room:deck.slide', { number: index + 1, count: slides.length })}
      data-testid="deck-caption"
    >
      <h2 data-testid="slide-title">{slide.title}</h2>
      {slide.body && <p>{slide.body}</p>}
      <div class="row">
        <button type="button" onClick={() => setIndex(Math.max(0, index - 1))} disabled={index === 0}>
          {t('room:deck.previous')}
        </button>
        <span>
          {index + 1} / {slides.length}
        </span>
        <button
          type="button"
          onClick={() => setIndex(Math.min(slides.length - 1, index + 1))}
          disabled={index === slides.length - 1}
        >
          {t('room:deck.next')}
        </button>
        {deck && (
          <button type="button" onClick={() => setPrinting(true)}>
            {t('print:open')}
          </button>
        )}
        {onClose && (
          <button
            type="button"
            onClick={() => {
              if (document.fullscreenElement) void document.exitFullscreen();
              onClose();
            }}
          >
            {t('room:deck.end')}
          </button>
        )}
      </div>
      {deck && printing && (
        <PrintDialog
          map={map}
          name={slide.title || t('print:deckTitle')}
          legend={legendItems(
            (deck.layers as Layer[]).filter((l) => l.style.visible && slide.layerIds.includes(l.id)),
            deck.rasterLayers.filter((r) => slide.rasterLayerIds.includes(r.id)),
          )}
          deck={{ ...deck, slides }}
          perSlide
          onClose={() => setPrinting(false)}
        />
      )}
    </div>
  );
}

/** Whether the map shows the view already (a deck opens at its first slide's view). */
function isAt(map: MapLibreMap, view: { center: [number, number]; zoom: number; bearing: number; pitch: number }) {
  const centre = map.project(view.center);
  const middle = map.project(map.getCenter());
  return (
    Math.hypot(centre.x - middle.x, centre.y - middle.y) < 1 &&
    Math.abs(map.getZoom() - view.zoom) < 0.01 &&
    Math.abs(map.getBearing() - view.bearing) < 0.1 &&
    Math.abs(map.getPitch() - view.pitch) < 0.1
  );
}
