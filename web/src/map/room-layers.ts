import type {
  GeoJSONSource,
  GeoJSONSourceSpecification,
  Map as MapLibreMap,
  RasterTileSource,
  VectorTileSource,
  SourceSpecification,
} from 'maplibre-gl';

type ContentSource = GeoJSONSourceSpecification & { data: GeoJSON.FeatureCollection };
import type { Drawing, Layer, Marker, RasterLayer } from '../api/types';
import { orderedLayers, vectorLayerPaint } from './layer-style';
import {
  CIRCLE_STROKE_PX,
  CLUSTER_COLOR,
  CLUSTER_MAX_ZOOM,
  CLUSTER_OPACITY,
  CLUSTER_RADIUS,
  clusterRadiusExpression,
  DRAWING_PAINT,
} from './content-style';
import type { PreviewPoint } from './marker-preview';
import { rasterTileAddress, VECTOR_TILE_MAXZOOM, vectorTileAddress } from './view-tiles';

/**
 * The room's content on the map, bottom to top: rasters (PNG tiles), vector layers (vector
 * tiles), drawings, markers (a clustered GeoJSON source: thousands stay smooth). Empty
 * "slot" layers keep that order as layers come and go.
 */
const SLOTS = ['slot-rasters', 'slot-vectors', 'slot-drawings', 'slot-markers'] as const;

export const MARKER_LAYERS = ['marker-points', 'marker-icons'];
export const DRAWING_LAYERS = ['drawing-fill', 'drawing-line', 'drawing-point'];
export const CLUSTER_LAYER = 'marker-clusters';
/** The property of a vector tile's coverage polygons (the service's COVERAGE_PROPERTY, src/geo/tiles.ts). */
export const COVERAGE = 'maproom:coverage';

/*
 * Fills are drawn without MapLibre's antialiased outline (`fill-antialias`): each fill has a line
 * layer that draws its outline, and the antialiased one is a second shader to compile per fill.
 */

/**
 * The circles' outline: dark when the marker is selected. Every circle layer of the room's
 * content (clusters, markers, drawn points) has the same data-driven properties, so MapLibre
 * compiles one circle shader for all of them (each distinct mix is a shader of its own, which a
 * software-rendered page takes over 100 ms to compile on opening).
 */
const circleStroke = {
  'circle-stroke-color': ['case', ['boolean', ['feature-state', 'selected'], false], '#111', '#fff'],
  'circle-stroke-width': ['case', ['boolean', ['feature-state', 'selected'], false], 3, CIRCLE_STROKE_PX],
} as never;

/** The content's first markers and drawings (none: empty sources). */
export interface InitialContent {
  markers?: Iterable<Marker>;
  drawings?: Iterable<Drawing>;
}

/**
 * The content's GeoJSON sources, empty or with their first markers and drawings: data given
 * later (`setData`) is a second pass of MapLibre's worker, and its tiles are cut again. Also for
 * the style a map is made with (createMap), where MapLibre reads them before its first frame.
 */
export function contentSources(initial: InitialContent = {}): Record<'drawings' | 'markers', ContentSource> {
  return {
    drawings: { type: 'geojson', data: drawingFeatures(initial.drawings ?? []) },
    markers: {
      type: 'geojson',
      data: markerFeatures(initial.markers ?? [], new Set()),
      cluster: true,
      clusterRadius: CLUSTER_RADIUS,
      clusterMaxZoom: CLUSTER_MAX_ZOOM,
      promoteId: 'id',
    },
  };
}

/** The content's sources (those the map was not made with: contentSources) and layers. */
export function addContentLayers(map: MapLibreMap, initial: InitialContent = {}) {
  const sources = contentSources(initial);
  for (const [id, source] of Object.entries(sources)) if (!map.getSource(id)) map.addSource(id, source);
  markersShown.set(map, sources.markers.data.features);
  for (const slot of SLOTS) map.addLayer({ id: slot, type: 'background', layout: { visibility: 'none' } });
  map.addLayer(
    {
      id: 'drawing-fill',
      type: 'fill',
      source: 'drawings',
      filter: ['==', ['geometry-type'], 'Polygon'],
      paint: { ...(DRAWING_PAINT.fill as object), 'fill-antialias': false },
    },
    'slot-drawings',
  );
  map.addLayer(
    {
      id: 'drawing-line',
      type: 'line',
      source: 'drawings',
      filter: ['!=', ['geometry-type'], 'Point'],
      paint: DRAWING_PAINT.line as never,
    },
    'slot-drawings',
  );
  map.addLayer(
    {
      id: 'drawing-point',
      type: 'circle',
      source: 'drawings',
      filter: ['==', ['geometry-type'], 'Point'],
      paint: { ...(DRAWING_PAINT.point as object), ...(circleStroke as object) },
    },
    'slot-drawings',
  );

  map.addLayer(
    {
      id: CLUSTER_LAYER,
      type: 'circle',
      source: 'markers',
      filter: ['has', 'point_count'],
      paint: {
        'circle-color': ['coalesce', ['get', 'color'], CLUSTER_COLOR],
        'circle-opacity': CLUSTER_OPACITY,
        'circle-radius': clusterRadiusExpression as never,
        ...(circleStroke as object),
      },
    },
    'slot-markers',
  );
  map.addLayer(
    {
      id: 'marker-points',
      type: 'circle',
      source: 'markers',
      filter: ['all', ['!', ['has', 'point_count']], ['!', ['has', 'icon']]],
      paint: {
        'circle-color': ['get', 'color'],
        'circle-radius': ['get', 'radius'],
        ...(circleStroke as object),
      },
    },
    'slot-markers',
  );
  map.addLayer(
    {
      id: 'marker-icons',
      type: 'symbol',
      source: 'markers',
      filter: ['all', ['!', ['has', 'point_count']], ['has', 'icon']],
      layout: {
        'icon-image': ['get', 'icon'],
        'icon-size': ['get', 'iconScale'],
        'icon-allow-overlap': true,
        'icon-anchor': 'bottom',
      },
    },
    'slot-markers',
  );
}

/** Above the content, what the room's page shows while one works: the inspected feature, a marker being dragged. */
export function addRoomOverlays(map: MapLibreMap) {
  map.addSource('feature-highlight', { type: 'geojson', data: empty() });
  map.addLayer({
    id: 'feature-highlight-fill',
    type: 'fill',
    source: 'feature-highlight',
    filter: ['==', ['geometry-type'], 'Polygon'],
    paint: { 'fill-color': '#f6ad55', 'fill-opacity': 0.35, 'fill-antialias': false },
  });
  map.addLayer({
    id: 'feature-highlight-line',
    type: 'line',
    source: 'feature-highlight',
    filter: ['!=', ['geometry-type'], 'Point'],
    paint: { 'line-color': '#dd6b20', 'line-width': 3 },
  });
  map.addLayer({
    id: 'feature-highlight-point',
    type: 'circle',
    source: 'feature-highlight',
    filter: ['==', ['geometry-type'], 'Point'],
    paint: {
      'circle-color': '#f6ad55',
      'circle-radius': 8,
      'circle-stroke-color': '#dd6b20',
      'circle-stroke-width': 3,
    },
  });
  map.addSource('marker-drag', { type: 'geojson', data: empty() });
  map.addLayer({
    id: 'marker-drag',
    type: 'circle',
    source: 'marker-drag',
    paint: { 'circle-color': '#f6ad55', 'circle-radius': 9, 'circle-stroke-color': '#111', 'circle-stroke-width': 2 },
  });
}

const empty = (): GeoJSON.FeatureCollection => ({ type: 'FeatureCollection', features: [] });

/** Outlines one layer feature (the inspected one) above the layers; null clears it. */
export function setHighlight(map: MapLibreMap, geometry: GeoJSON.Geometry | null) {
  const source = map.getSource('feature-highlight') as GeoJSONSource | undefined;
  source?.setData(geometry ? { type: 'Feature', geometry, properties: {} } : empty());
}

const markerColor = (m: Marker) => m.color ?? '#3388ff';
/** A marker's circle radius in px, from its `markerIconSize`. */
const markerRadius = (m: Marker) => Math.max(4, Math.min(16, (m.markerIconSize ?? 28) / 4));

/** Markers as GeoJSON features: colour, icon and size (`markerIconSize`, px) as stored. */
export function markerFeatures(markers: Iterable<Marker>, loadedIcons: Set<string>): GeoJSON.FeatureCollection {
  const features: GeoJSON.Feature[] = [];
  for (const m of markers) {
    if (m.latitude === undefined || m.longitude === undefined) continue;
    const icon = m.markerIconId && loadedIcons.has(m.markerIconId) ? `icon-${m.markerIconId}` : undefined;
    features.push({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [m.longitude, m.latitude] },
      properties: {
        id: m.id,
        ...(m.title && { title: m.title }),
        color: markerColor(m),
        radius: markerRadius(m),
        ...(icon && { icon, iconScale: Math.max(0.25, Math.min(3, (m.markerIconSize ?? 32) / 32)) }),
      },
    });
  }
  return { type: 'FeatureCollection', features };
}

/** The markers as the first frame's preview draws them (map/marker-preview.ts): as circles, icons too. */
export function previewPoints(markers: Iterable<Marker>): PreviewPoint[] {
  const points: PreviewPoint[] = [];
  for (const m of markers) {
    if (m.latitude === undefined || m.longitude === undefined) continue;
    points.push({ coordinates: [m.longitude, m.latitude], color: markerColor(m), radius: markerRadius(m) });
  }
  return points;
}

/** What each map's markers source was last given: the same again is not sent (clustering 10,000 markers is not free). */
const markersShown = new WeakMap<MapLibreMap, GeoJSON.Feature[]>();

export function setMarkers(map: MapLibreMap, markers: Iterable<Marker>, loadedIcons: Set<string>) {
  const { features } = markerFeatures(markers, loadedIcons);
  // Whole markers read after the feed (titles, tags) change nothing the map draws.
  const shown = markersShown.get(map);
  if (shown && sameFeatures(shown, features)) return;
  markersShown.set(map, features);
  (map.getSource('markers') as GeoJSONSource).setData({ type: 'FeatureCollection', features });
}

function sameFeatures(a: GeoJSON.Feature[], b: GeoJSON.Feature[]) {
  if (a.length !== b.length) return false;
  return a.every((f, i) => {
    const g = b[i]!;
    const [x, y] = (f.geometry as GeoJSON.Point).coordinates;
    const [u, v] = (g.geometry as GeoJSON.Point).coordinates;
    const p = f.properties!;
    const q = g.properties!;
    return (
      x === u &&
      y === v &&
      Object.keys(p).length === Object.keys(q).length &&
      Object.keys(p).every((key) => p[key] === q[key])
    );
  });
}

export function setDrawings(map: MapLibreMap, drawings: Iterable<Drawing>) {
  (map.getSource('drawings') as GeoJSONSource).setData(drawingFeatures(drawings));
}

function drawingFeatures(drawings: Iterable<Drawing>): GeoJSON.FeatureCollection {
  const features = [...drawings].map((d) => ({
    type: 'Feature' as const,
    id: undefined,
    geometry: d.geometry as unknown as GeoJSON.Geometry,
    properties: drawingProperties(d),
  }));
  return { type: 'FeatureCollection', features };
}

/** A drawing's properties in the drawings source: what its paint (content-style.ts DRAWING_PAINT) reads. */
export function drawingProperties(d: Drawing): Record<string, unknown> {
  return {
    id: d.id,
    label: d.label,
    ...(d.style?.color && { color: d.style.color }),
    ...(d.style?.fillColor && { fillColor: d.style.fillColor }),
    ...(d.style?.opacity !== undefined && { opacity: d.style.opacity }),
    ...(d.style?.strokeWeight !== undefined && { strokeWeight: d.style.strokeWeight }),
  };
}

/** What the page shows of each layer beyond its stored style: hidden here, this page only. */
export interface LocalVisibility {
  hidden: Set<string>;
}

/**
 * A layer's vector tiles as a source of the map (kept when it is there already); answers its id.
 * MapLibre asks for tiles in the order its sources were added, and its one worker takes the
 * requests in turn: a page whose layer's tiles matter most adds their source first.
 */
export function addVectorSource(map: MapLibreMap, layer: Layer): string {
  const source = `vector-${layer.id}`;
  const held = map.getSource(source) as VectorTileSource | undefined;
  if (!held) map.addSource(source, vectorSource(layer));
  else if (held.tiles?.[0] !== vectorTiles(layer)) held.setTiles([vectorTiles(layer)]);
  return source;
}

/** A layer's tile address; an edit of its features (heard of live) changes it, so no stale tile is kept. */
const vectorTiles = (layer: Layer) =>
  layer.editedAt === undefined ? vectorTileAddress(layer.id) : `${vectorTileAddress(layer.id)}?edit=${layer.editedAt}`;

/** A layer's vector tiles as MapLibre's source, `vector-<layer id>` (also in a style a map is made with). */
export function vectorSource(layer: Layer): SourceSpecification {
  return {
    type: 'vector',
    tiles: [vectorTiles(layer)],
    maxzoom: VECTOR_TILE_MAXZOOM,
    ...(layer.bbox && { bounds: layer.bbox as [number, number, number, number] }),
  };
}

/** Vector layers from their vector tiles, styled as stored. */
export function setVectorLayers(map: MapLibreMap, layers: Layer[], hidden: Set<string>) {
  const wanted = new Set(layers.map((l) => l.id));
  for (const id of Object.keys(map.getStyle().sources)) {
    const layerId = id.startsWith('vector-') ? id.slice(7) : null;
    if (layerId && !wanted.has(layerId)) {
      for (const part of ['fill', 'line', 'point'])
        if (map.getLayer(`vector-${layerId}-${part}`)) map.removeLayer(`vector-${layerId}-${part}`);
      map.removeSource(id);
    }
  }
  for (const layer of layers) {
    const source = addVectorSource(map, layer);
    if (!map.getLayer(`${source}-fill`)) {
      map.addLayer(
        {
          id: `${source}-fill`,
          type: 'fill',
          source,
          'source-layer': 'features',
          filter: ['==', ['geometry-type'], 'Polygon'],
          paint: { 'fill-antialias': false },
        },
        'slot-vectors',
      );
      map.addLayer(
        {
          id: `${source}-line`,
          type: 'line',
          source,
          'source-layer': 'features',
          // A coverage polygon (many small features merged at a low zoom) is filled, not outlined:
          // its outline would draw its cells' squares and, past the tile's edge, seams.
          filter: ['all', ['!=', ['geometry-type'], 'Point'], ['!', ['has', COVERAGE]]],
        },
        'slot-vectors',
      );
      map.addLayer(
        {
          id: `${source}-point`,
          type: 'circle',
          source,
          'source-layer': 'features',
          filter: ['==', ['geometry-type'], 'Point'],
        },
        'slot-vectors',
      );
    }
    const visibility = layer.style.visible && !hidden.has(layer.id) ? 'visible' : 'none';
    const paint = vectorLayerPaint(layer.style);
    for (const part of ['fill', 'line', 'point'] as const) {
      map.setLayoutProperty(`${source}-${part}`, 'visibility', visibility);
      for (const [property, value] of Object.entries(paint[part]))
        map.setPaintProperty(`${source}-${part}`, property as never, value as never);
    }
  }
  // The shared order (style.order, 0 on top): the bottom layer first, each next one put above it.
  for (const layer of orderedLayers(layers).reverse())
    for (const part of ['fill', 'line', 'point']) map.moveLayer(`vector-${layer.id}-${part}`, 'slot-vectors');
}

/** Rasters from their PNG tiles; a changed display gets new tile addresses, so no stale tile is shown. */
export function setRasterLayers(map: MapLibreMap, rasters: RasterLayer[], hidden: Set<string>) {
  const wanted = new Set(rasters.map((r) => r.id));
  for (const id of Object.keys(map.getStyle().sources)) {
    const rasterId = id.startsWith('raster-') ? id.slice(7) : null;
    if (rasterId && !wanted.has(rasterId)) {
      map.removeLayer(id);
      map.removeSource(id);
    }
  }
  for (const raster of rasters) {
    const id = `raster-${raster.id}`;
    const tiles = [rasterTileAddress(raster)];
    const source = map.getSource(id) as RasterTileSource | undefined;
    if (!source) {
      map.addSource(id, {
        type: 'raster',
        tiles,
        tileSize: 256,
        minzoom: 0,
        maxzoom: raster.maxZoom,
        ...(raster.bbox && { bounds: raster.bbox as [number, number, number, number] }),
      });
      map.addLayer({ id, type: 'raster', source: id }, 'slot-rasters');
    } else if (source.tiles?.[0] !== tiles[0]) {
      source.setTiles(tiles);
    }
    map.setLayoutProperty(id, 'visibility', hidden.has(raster.id) ? 'none' : 'visible');
  }
}
