import { authHeaders } from '../api/client';
import type { Deck, Layer } from '../api/types';
import { VECTOR_TILE_MAXZOOM, vectorTileAddress, viewTiles } from './view-tiles';

/**
 * The vector tiles of a deck's first slide, asked for by the page's entry (src/early.ts) as soon
 * as the deck is read, into the browser's cache (the service lets it keep a tile a minute):
 * MapLibre's worker asks for them only once MapLibre has loaded and made the map, some 500 ms
 * later on this machine, and finds them there. The same tiles it asks for (view-tiles.ts), with
 * the same credential; none for a pitched view.
 */
export function warmFirstSlideTiles(deck: Deck) {
  const first = deck.slides[0];
  if (!first) return;
  const layers = (deck.layers as Layer[]).filter((layer) => first.layerIds?.includes(layer.id) && layer.style.visible);
  for (const layer of layers)
    for (const { z, x, y } of viewTiles(first.view, innerWidth, innerHeight, {
      maxzoom: VECTOR_TILE_MAXZOOM,
      bounds: layer.bbox ?? undefined,
    })) {
      const address = vectorTileAddress(layer.id).replace('{z}', `${z}`).replace('{x}', `${x}`).replace('{y}', `${y}`);
      void fetch(address, { headers: authHeaders() })
        .then((response) => response.arrayBuffer())
        .catch(() => undefined);
    }
}
