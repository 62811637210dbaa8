import { useEffect, useRef, useState } from 'preact/hooks';
import { prewarm, type Map as MapLibreMap } from 'maplibre-gl';
import { api, ok } from '../api/client';
import type { Deck } from '../api/types';
import { createMap, whenStyleReady } from '../map/create-map';
import { DeckContent } from '../map/deck-content';
import { DeckPlayer } from '../room/deck-player';
import { InlineError, useInlineError } from '../ui/inline-error';

const NOT_PUBLIC = 'This presentation is not public, or does not exist.';

/** /p/:roomId: the published presentation, for anyone (even when the room itself is private). */
export function DeckPage({ roomId }: { roomId: string }) {
  const [deck, setDeck] = useState<Deck | null>(null);
  const { error, attempt } = useInlineError({ 401: NOT_PUBLIC, 403: NOT_PUBLIC, 404: NOT_PUBLIC });
  const [shown, setShown] = useState<{ map: MapLibreMap; content: DeckContent } | null>(null);
  const container = useRef<HTMLDivElement>(null);
  // MapLibre's worker starts loading now, beside the deck's request, not when the map is made.
  useEffect(() => prewarm(), []);
  useEffect(() => {
    void attempt(() => ok(api.GET('/api/rooms/{roomId}/presentation', { params: { path: { roomId } } })).then(setDeck));
  }, [roomId]);
  useEffect(() => {
    if (!deck || !container.current) return;
    const first = deck.slides[0]?.view ?? { lat: 20, lng: 0, zoom: 1.5 };
    const element = container.current;
    const created = createMap(element, first, deck.slides[0]?.baseLayer ?? null, null);
    whenStyleReady(created, () => {
      // The first slide is shown once its own content is drawn; the base map's tiles come when they come.
      const content = new DeckContent(created, deck, () => {
        element.dataset.ready = 'true';
        performance.mark('maproom:slide-shown');
      });
      if (deck.slides.length === 0) content.show(undefined);
      setShown({ map: created, content });
    });
    return () => created.remove();
  }, [deck]);
  if (error)
    return (
      <main class="page narrow">
        <h1>Presentation</h1>
        <InlineError message={error} />
      </main>
    );
  if (!deck)
    return (
      <main class="page narrow">
        <p>Loading the presentation…</p>
      </main>
    );
  return (
    <div class="deck-page">
      <div ref={container} class="map" role="application" aria-label="Presentation map" data-testid="map" />
      {shown && <DeckPlayer map={shown.map} slides={deck.slides} onShow={(slide) => shown.content.show(slide)} />}
    </div>
  );
}
