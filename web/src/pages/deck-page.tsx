import { useEffect, useRef, useState } from 'preact/hooks';
import type { Map as MapLibreMap } from 'maplibre-gl';
import { ApiError, api, messageOf, ok } from '../api/client';
import type { Deck, Layer } from '../api/types';
import { createMap } from '../map/create-map';
import { addContentLayers, setDrawings, setMarkers, setRasterLayers, setVectorLayers } from '../map/room-layers';
import { DrawingLabels } from '../map/map-labels';
import { DeckPlayer } from '../room/deck-player';

/** /p/:roomId: the published presentation, for anyone (even when the room itself is private). */
export function DeckPage({ roomId }: { roomId: string }) {
  const [deck, setDeck] = useState<Deck | null>(null);
  const [error, setError] = useState('');
  const [map, setMap] = useState<MapLibreMap | null>(null);
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ok(api.GET('/api/rooms/{roomId}/presentation', { params: { path: { roomId } } }))
      .then(setDeck)
      .catch((e) =>
        setError(
          e instanceof ApiError && (e.status === 401 || e.status === 403 || e.status === 404)
            ? 'This presentation is not public, or does not exist.'
            : messageOf(e),
        ),
      );
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
        <p role="alert" class="error">
          {error}
        </p>
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
