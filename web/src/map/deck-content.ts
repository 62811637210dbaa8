import type { Map as MapLibreMap } from 'maplibre-gl';
import type { Deck, Layer, Slide } from '../api/types';
import { DrawingLabels } from './map-labels';
import { addContentLayers, setDrawings, setMarkers, setRasterLayers, setVectorLayers } from './room-layers';

/**
 * A published deck on the map, one slide at a time: each slide shows only the markers,
 * drawings, layers and rasters it lists. A layer's tiles are asked for when a slide first shows
 * it (a hidden layer loads nothing) and stay for the slides that come back to it.
 */
export class DeckContent {
  private readonly labels: DrawingLabels;
  private readonly layersSeen = new Set<string>();
  private readonly rastersSeen = new Set<string>();
  private shown = false;
  private current: string | undefined;

  constructor(
    private readonly map: MapLibreMap,
    private readonly deck: Deck,
    private readonly onFirstShown: () => void,
  ) {
    addContentLayers(map);
    this.labels = new DrawingLabels(map);
  }

  /** Shows a slide's objects; the slide shown already is left as it is. */
  show(slide: Slide | undefined) {
    if (this.shown && slide?.id === this.current) return;
    this.current = slide?.id;
    const { deck, map } = this;
    const on = (ids: string[] | undefined) => new Set(ids ?? []);
    const markers = on(slide?.markerIds);
    const drawings = on(slide?.drawingIds);
    const layers = on(slide?.layerIds);
    const rasters = on(slide?.rasterLayerIds);
    for (const id of layers) this.layersSeen.add(id);
    for (const id of rasters) this.rastersSeen.add(id);
    // Layers first: their tiles take longest to come (the markers and drawings are in the deck).
    const notOn = (shown: Set<string>) => (ids: Iterable<string>) => new Set([...ids].filter((id) => !shown.has(id)));
    setVectorLayers(
      map,
      (deck.layers as Layer[]).filter((l) => this.layersSeen.has(l.id)),
      notOn(layers)(this.layersSeen),
    );
    setRasterLayers(
      map,
      deck.rasterLayers.filter((r) => this.rastersSeen.has(r.id)),
      notOn(rasters)(this.rastersSeen),
    );
    setMarkers(
      map,
      deck.markers.filter((m) => markers.has(m.id)),
      new Set(),
    );
    const slideDrawings = deck.drawings.filter((d) => drawings.has(d.id));
    setDrawings(map, slideDrawings);
    this.labels.set(slideDrawings);
    if (!this.shown) {
      this.shown = true;
      const sources = [
        'markers',
        'drawings',
        ...[...layers].map((id) => `vector-${id}`),
        ...[...rasters].map((id) => `raster-${id}`),
      ].filter((id) => map.getSource(id));
      whenDrawn(map, sources, this.onFirstShown);
    }
  }
}

/** Calls `drawn` after the first frame drawn with `sources` loaded (not waiting for the base map's tiles). */
function whenDrawn(map: MapLibreMap, sources: string[], drawn: () => void) {
  const check = () => {
    if (!sources.every((id) => map.isSourceLoaded(id))) return;
    map.off('render', check);
    drawn();
  };
  map.on('render', check);
  map.triggerRepaint();
}
