import { useEffect, useRef, useState } from 'preact/hooks';
import type { Map as MapLibreMap } from 'maplibre-gl';
import { api, ok } from '../api/client';
import type { Deck, Layer } from '../api/types';
import { createMap } from '../map/create-map';
import { addContentLayers, setDrawings, setMarkers, setRasterLayers, setVectorLayers } from '../map/room-layers';
import { DrawingLabels } from '../map/map-labels';
import { DeckPlayer } from '../room/deck-player';
import { InlineError, useInlineError } from '../ui/inline-error';

const NOT_PUBLIC = 'This presentation is not public, or does not exist.';

/** /p/:roomId: the published presentation, for anyone (even when the room itself is private). */
export function DeckPage({ roomId }: { roomId: string }) {
  const [deck, setDeck] = useState<Deck | null>(null);
  const { error, attempt } = useInlineError({ 401: NOT_PUBLIC, 403: NOT_PUBLIC, 404: NOT_PUBLIC });
  const [map, setMap] = useState<MapLibreMap | null>(null);
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    void attempt(() => ok(api.GET('/api/rooms/{roomId}/presentation', { params: { path: { roomId } } })).then(setDeck));
  }, [roomId]);
  useEffect(() => {
    if (!deck || !container.current) return;
    const first = deck.slides[0]?.view ?? { lat: 20, lng: 0, zoom: 1.5 };
    const created = createMap(container.current, first, deck.slides[0]?.baseLayer ?? null, null);
    created.on('load', () => {
      addContentLayers(created);
      setMarkers(created, deck.markers, new Set());
      setDrawings(created, deck.drawings);
      new DrawingLabels(created).set(deck.drawings);
      setVectorLayers(created, deck.layers as Layer[], new Set());
      setRasterLayers(created, deck.rasterLayers, new Set());
      container.current!.dataset.ready = 'true';
      setMap(created);
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
      {map && <DeckPlayer map={map} slides={deck.slides} />}
    </div>
  );
}
