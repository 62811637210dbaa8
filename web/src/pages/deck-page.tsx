import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Map as MapLibreMap } from 'maplibre-gl';
import { takeEarly } from '../api/early-reads';
import type { Deck } from '../api/types';
import { baseMapAfter, createMap, setBaseLayer, whenStyleReady } from '../map/create-map';
import { DeckContent } from '../map/deck-content';
import { DeckPlayer } from '../room/deck-player';
import { InlineError, useInlineError } from '../ui/inline-error';

const NOT_PUBLIC = 'This presentation is not public, or does not exist.';

/** /p/:roomId: the published presentation, for anyone (even when the room itself is private). */
export function DeckPage({ roomId }: { roomId: string }) {
  const [deck, setDeck] = useState<Deck | null>(null);
  const { error, attempt } = useInlineError({ 401: NOT_PUBLIC, 403: NOT_PUBLIC, 404: NOT_PUBLIC });
  const [map, setMap] = useState<MapLibreMap | null>(null);
  const container = useRef<HTMLDivElement>(null);
  // The first slide's content is drawn before the offline base map's coastlines are cut (BaseMap.after).
  const firstShown = useMemo(() => {
    let shown!: () => void;
    return { promise: new Promise<void>((resolve) => (shown = resolve)), shown: () => shown() };
  }, []);
  // Layout effects, here and below: run as soon as the page is rendered, not after a frame is
  // drawn, which a browser drawing in software draws late.
  useLayoutEffect(() => {
    void attempt(() => takeEarly('deck', roomId).then(setDeck));
  }, [roomId]);
  // The map is made at once, blank, while the deck loads (its request left before the
  // application's scripts ran); the first slide's view and base map come with it.
  useLayoutEffect(() => {
    const created = createMap(container.current!, { lat: 20, lng: 0, zoom: 1.5 }, 'blank', null);
    baseMapAfter(created, firstShown.promise);
    whenStyleReady(created, () => setMap(created));
    return () => created.remove();
  }, []);
  const content = useMemo(() => {
    if (!map || !deck) return null;
    const first = deck.slides[0];
    if (first)
      map.jumpTo({
        center: [first.view.lng, first.view.lat],
        zoom: first.view.zoom,
        bearing: first.view.bearing ?? 0,
        pitch: first.view.pitch ?? 0,
      });
    setBaseLayer(map, first?.baseLayer ?? null, null);
    // The first slide is shown once its own content is drawn; the base map's tiles come when they come.
    const shown = new DeckContent(map, deck, () => {
      container.current!.dataset.ready = 'true';
      performance.mark('maproom:slide-shown');
      firstShown.shown();
    });
    // The first slide's content now, in the task that moved the map there: its layers' tiles are
    // asked for in the next frame, not after the player's first render (which shows it again: no-op).
    shown.show(first);
    return shown;
  }, [map, deck]);
  return (
    <>
      {error && (
        <main class="page narrow">
          <h1>Presentation</h1>
          <InlineError message={error} />
        </main>
      )}
      <div class="deck-page" hidden={!!error}>
        <div ref={container} class="map" role="application" aria-label="Presentation map" data-testid="map" />
        {!deck && <p class="deck-caption">Loading the presentation…</p>}
        {map && deck && content && (
          <DeckPlayer map={map} slides={deck.slides} onShow={(slide) => content.show(slide)} />
        )}
      </div>
    </>
  );
}
