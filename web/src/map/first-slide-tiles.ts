import { authHeaders } from '../api/client';
import type { Deck, Layer, Slide } from '../api/types';
import {
  rasterTileAddress,
  type TileId,
  type TileSourceRange,
  VECTOR_TILE_MAXZOOM,
  vectorTileAddress,
  viewTiles,
} from './view-tiles';

/**
 * One tile of a layer the first slide shows, as the service sent it: a vector tile (empty: no
 * feature there) or a raster's PNG tile.
 */
export interface SlideTile {
  kind: 'vector' | 'raster';
  layerId: string;
  tile: TileId;
  bytes: ArrayBuffer;
}

const read = new WeakMap<Deck, Promise<SlideTile[]>>();

/** The deck's markers, drawings, layers and rasters a slide lists. */
export function slideObjects(deck: Deck, slide: Slide | undefined) {
  const on = (ids: string[] | undefined) => new Set(ids ?? []);
  const markers = on(slide?.markerIds);
  const drawings = on(slide?.drawingIds);
  const layers = on(slide?.layerIds);
  const rasters = on(slide?.rasterLayerIds);
  return {
    markers: deck.markers.filter((m) => markers.has(m.id)),
    drawings: deck.drawings.filter((d) => drawings.has(d.id)),
    layers: (deck.layers as Layer[]).filter((l) => layers.has(l.id)),
    rasters: deck.rasterLayers.filter((r) => rasters.has(r.id)),
  };
}

/** The first slide's layers that show: the ones it lists, visible by their style. */
export function firstSlideLayers(deck: Deck): Layer[] {
  return slideObjects(deck, deck.slides[0]).layers.filter((layer) => layer.style.visible);
}

/**
 * The tiles of a deck's first slide (its layers' vector tiles, its rasters' PNG tiles), asked for
 * by the page's entry (src/early.ts) as soon as the deck is read. They go into the browser's
 * cache (the service lets it keep a vector tile a minute): MapLibre's worker asks for them only once MapLibre has loaded and made the map, some
 * 500 ms later on this machine, and finds them there. They are also kept here for the slide's
 * preview (slide-preview.ts), which draws them before MapLibre can. The same tiles MapLibre asks
 * for (view-tiles.ts), for a view the size of the window, with the same credential; none for a
 * pitched view. A tile the service refused fails the whole read. (A raster's tiles are
 * revalidated by the map, `no-cache`: cheaply, with their ETag.)
 */
export function warmFirstSlideTiles(deck: Deck) {
  const reading = fetchTiles(deck);
  reading.catch(() => undefined);
  read.set(deck, reading);
}

/** The first slide's tiles read early for this deck (warmFirstSlideTiles), or read now. */
export function firstSlideTiles(deck: Deck): Promise<SlideTile[]> {
  const early = read.get(deck);
  read.delete(deck);
  return early ?? fetchTiles(deck);
}

function fetchTiles(deck: Deck): Promise<SlideTile[]> {
  const first = deck.slides[0];
  if (!first) return Promise.resolve([]);
  const inView = (range: TileSourceRange) => viewTiles(first.view, innerWidth, innerHeight, range);
  const wanted = [
    ...firstSlideLayers(deck).flatMap((layer) =>
      inView({ maxzoom: VECTOR_TILE_MAXZOOM, bounds: layer.bbox ?? undefined }).map((tile) => ({
        kind: 'vector' as const,
        layerId: layer.id,
        tile,
        address: vectorTileAddress(layer.id),
      })),
    ),
    ...slideObjects(deck, first).rasters.flatMap((raster) =>
      inView({ maxzoom: raster.maxZoom, bounds: raster.bbox ?? undefined, tileSize: 256, roundZoom: true }).map(
        (tile) => ({ kind: 'raster' as const, layerId: raster.id, tile, address: rasterTileAddress(raster) }),
      ),
    ),
  ];
  return Promise.all(
    wanted.map(async ({ kind, layerId, tile, address }) => {
      const { z, x, y } = tile;
      const url = address.replace('{z}', `${z}`).replace('{x}', `${x}`).replace('{y}', `${y}`);
      // The credential goes only to this service.
      if (new URL(url).origin !== location.origin) throw new Error(`not this service's tile: ${url}`);
      const response = await fetch(url, { headers: authHeaders() });
      if (!response.ok) throw new Error(`tile ${z}/${x}/${y}: ${response.status}`);
      return { kind, layerId, tile, bytes: await response.arrayBuffer() };
    }),
  );
}
