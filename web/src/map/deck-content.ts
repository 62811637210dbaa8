import type { Map as MapLibreMap, StyleSpecification } from 'maplibre-gl';
import type { Deck, Layer, Slide } from '../api/types';
import { slideObjects } from './first-slide-tiles';
import { DrawingLabels } from './map-labels';
import {
  addContentLayers,
  addVectorSource,
  contentSources,
  setDrawings,
  setMarkers,
  setRasterLayers,
  setVectorLayers,
  vectorSource,
} from './room-layers';

/**
 * A published deck on the map, one slide at a time: each slide shows only the markers,
 * drawings, layers and rasters it lists. A layer's tiles are asked for when a slide first shows
 * it (a hidden layer loads nothing) and stay for the slides that come back to it.
 */
export class DeckContent {
  private readonly labels: DrawingLabels;
  private readonly layersSeen = new Set<string>();
  private readonly rastersSeen = new Set<string>();
  private current: string | undefined;

  /**
   * Shows the deck's first slide at once, its layers' sources added first (their tiles take
   * longest to come, and MapLibre asks for tiles source by source) and its markers and drawings
   * in the sources as they are made; `onFirstShown` hears when they are drawn (the base map's
   * tiles come when they come).
   */
  constructor(
    private readonly map: MapLibreMap,
    private readonly deck: Deck,
    onFirstShown: () => void,
  ) {
    const first = deck.slides[0];
    const objects = slideObjects(deck, first);
    for (const layer of objects.layers) addVectorSource(map, layer);
    addContentLayers(map, objects);
    this.labels = new DrawingLabels(map);
    this.showLayers(first);
    this.labels.set(objects.drawings);
    this.current = first?.id;
    const sources = ['markers', 'drawings', ...(first?.layerIds ?? []).map((id) => `vector-${id}`)];
    whenDrawn(
      map,
      [...sources, ...(first?.rasterLayerIds ?? []).map((id) => `raster-${id}`)].filter((id) => map.getSource(id)),
      onFirstShown,
    );
  }

  /** Shows a slide's objects; the slide shown already is left as it is. */
  show(slide: Slide | undefined) {
    if (slide?.id === this.current) return;
    this.current = slide?.id;
    this.showLayers(slide);
    const { markers, drawings } = slideObjects(this.deck, slide);
    setMarkers(this.map, markers, new Set());
    setDrawings(this.map, drawings);
    this.labels.set(drawings);
  }

  /** The slide's layers and rasters shown; those of slides seen before stay, hidden. */
  private showLayers(slide: Slide | undefined) {
    const { deck, map } = this;
    const layers = new Set(slide?.layerIds ?? []);
    const rasters = new Set(slide?.rasterLayerIds ?? []);
    for (const id of layers) this.layersSeen.add(id);
    for (const id of rasters) this.rastersSeen.add(id);
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
  }
}

/**
 * The sources of the deck's first slide, its layers' first, for the style its map is made with
 * (createMap): MapLibre then asks for all their tiles in its first frame.
 */
export function firstSlideSources(deck: Deck): StyleSpecification['sources'] {
  const objects = slideObjects(deck, deck.slides[0]);
  return {
    ...Object.fromEntries(objects.layers.map((layer) => [`vector-${layer.id}`, vectorSource(layer)])),
    ...contentSources(objects),
  };
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
