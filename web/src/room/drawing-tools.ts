import type { Map as MapLibreMap, MapMouseEvent, MapTouchEvent } from 'maplibre-gl';
import {
  TerraDraw,
  TerraDrawLineStringMode,
  TerraDrawPointMode,
  TerraDrawPolygonMode,
  TerraDrawSelectMode,
  type GeoJSONStoreFeatures,
} from 'terra-draw';
import { TerraDrawMapLibreGLAdapter } from 'terra-draw-maplibre-gl-adapter';
import { t } from '../i18n/index.js';

export type ShapeKind = 'point' | 'linestring' | 'polygon';

const tools = new WeakMap<MapLibreMap, TerraDraw>();
const editable = { feature: { draggable: true, coordinates: { midpoints: true, draggable: true, deletable: true } } };

/** terra-draw on the room's map, made when first needed: it draws and reshapes; stored drawings are the map's own layers. */
function toolOf(map: MapLibreMap): TerraDraw {
  let draw = tools.get(map);
  if (!draw) {
    draw = new TerraDraw({
      adapter: new TerraDrawMapLibreGLAdapter({ map }),
      modes: [
        new TerraDrawPointMode(),
        new TerraDrawLineStringMode(),
        new TerraDrawPolygonMode(),
        new TerraDrawSelectMode({
          // Escape and Delete are the page's: Escape ends the editing, Delete removes the vertex pressed.
          keyEvents: { deselect: null, delete: null, rotate: null, scale: null },
          flags: { polygon: editable, linestring: editable, point: { feature: { draggable: true } } },
        }),
      ],
    });
    draw.start();
    tools.set(map, draw);
  }
  return draw;
}

/**
 * Draws one shape; `onShape` receives its geometry when it is finished, `onChange` the shape so
 * far while it is drawn (to measure it). A shape drawn to be saved goes from the tool when it is
 * finished (the map's own layers show it once saved); one drawn to be measured (`keep`) stays
 * until the returned function clears it. The returned function cancels and clears the shape.
 */
export function drawShape(
  map: MapLibreMap,
  kind: ShapeKind,
  onShape: (geometry: GeoJSON.Geometry) => void,
  onChange?: (geometry: GeoJSON.Geometry) => void,
  keep = false,
): () => void {
  const draw = toolOf(map);
  draw.clear();
  draw.setMode(kind);
  // The shape being drawn (the tool was cleared first), not the guide points that change with it.
  const changed = () => {
    const shape = draw.getSnapshot().find((f) => f.geometry.type !== 'Point');
    if (shape && onChange) onChange(shape.geometry as GeoJSON.Geometry);
  };
  if (onChange) draw.on('change', changed);
  const finished = (id: string | number, context: { action: string }) => {
    if (context.action !== 'draw') return;
    const feature = draw.getSnapshotFeature(id);
    draw.off('finish', finished);
    draw.off('change', changed);
    if (!keep) draw.clear();
    draw.setMode('static');
    if (feature) onShape(feature.geometry as GeoJSON.Geometry);
  };
  draw.on('finish', finished);
  return () => {
    draw.off('finish', finished);
    draw.off('change', changed);
    draw.clear();
    draw.setMode('static');
  };
}

/** A shape in the editor: ends it with the new geometry, or deletes the vertex last pressed. */
export interface ShapeEdit {
  /** The geometry as reshaped so far (null if it left the editor). */
  current(): GeoJSON.Geometry | null;
  /** Ends the editing; the geometry as reshaped (null if it left the editor). */
  end(): GeoJSON.Geometry | null;
  /** Deletes the vertex last pressed (a line keeps 2, a ring 3); false if none could go. */
  deleteVertex(): boolean;
}

/** terra-draw's precision: coordinates with more decimals are refused. */
const PRECISION = 1e9;
const rounded = (c: GeoJSON.Position) => [
  Math.round(c[0]! * PRECISION) / PRECISION,
  Math.round(c[1]! * PRECISION) / PRECISION,
];

/**
 * One geometry as pieces terra-draw edits: a point, line or ring each (a multi-part's parts, a
 * polygon's holes apart, as terra-draw takes no holes nor multi-parts), and the way back.
 */
function piecesOf(geometry: GeoJSON.Geometry): {
  pieces: GeoJSON.Geometry[];
  join: (p: GeoJSON.Geometry[]) => GeoJSON.Geometry;
} {
  const coordinatesOf = (p: GeoJSON.Geometry) => (p as GeoJSON.Point | GeoJSON.LineString).coordinates;
  const ringOf = (p: GeoJSON.Geometry) => (p as GeoJSON.Polygon).coordinates[0]!;
  const ringPieces = (rings: GeoJSON.Position[][]) =>
    rings.map((ring): GeoJSON.Geometry => ({ type: 'Polygon', coordinates: [ring.map(rounded)] }));
  switch (geometry.type) {
    case 'Point':
      return { pieces: [{ type: 'Point', coordinates: rounded(geometry.coordinates) }], join: ([p]) => p! };
    case 'MultiPoint':
      return {
        pieces: geometry.coordinates.map((c) => ({ type: 'Point', coordinates: rounded(c) })),
        join: (p) => ({ type: 'MultiPoint', coordinates: p.map(coordinatesOf) as GeoJSON.Position[] }),
      };
    case 'LineString':
      return { pieces: [{ type: 'LineString', coordinates: geometry.coordinates.map(rounded) }], join: ([p]) => p! };
    case 'MultiLineString':
      return {
        pieces: geometry.coordinates.map((line) => ({ type: 'LineString', coordinates: line.map(rounded) })),
        join: (p) => ({ type: 'MultiLineString', coordinates: p.map(coordinatesOf) as GeoJSON.Position[][] }),
      };
    case 'Polygon':
      return {
        pieces: ringPieces(geometry.coordinates),
        join: (p) => ({ type: 'Polygon', coordinates: p.map(ringOf) }),
      };
    case 'MultiPolygon': {
      const sizes = geometry.coordinates.map((polygon) => polygon.length);
      return {
        pieces: ringPieces(geometry.coordinates.flat()),
        join: (p) => {
          const rings = p.map(ringOf);
          return { type: 'MultiPolygon', coordinates: sizes.map((size) => rings.splice(0, size)) };
        },
      };
    }
    default:
      throw new Error(`${geometry.type} cannot be reshaped`);
  }
}

/** How near (in pixels) a press must be to a vertex to pick it for deletion. */
const VERTEX_PX = 14;

/**
 * Puts a geometry into the editor to move it, drag its vertices, add one at a midpoint (drag
 * it) and delete one (right-click it, or press it and call `deleteVertex`): every part of a
 * multi-part geometry and every ring of a polygon can be reshaped.
 */
export function editShape(map: MapLibreMap, geometry: GeoJSON.Geometry): ShapeEdit {
  const draw = toolOf(map);
  draw.clear();
  const { pieces, join } = piecesOf(geometry);
  const ids = pieces.map(() => crypto.randomUUID());
  const mode = (g: GeoJSON.Geometry) =>
    g.type === 'Polygon' ? 'polygon' : g.type === 'LineString' ? 'linestring' : 'point';
  const added = draw.addFeatures(
    pieces.map(
      (g, i) => ({ id: ids[i], type: 'Feature', geometry: g, properties: { mode: mode(g) } }) as GeoJSONStoreFeatures,
    ),
  );
  draw.setMode('select');
  if (added.some((result) => !result.valid)) {
    draw.clear();
    draw.setMode('static');
    throw new Error(t('draw:shapeEditor.notEditable'));
  }
  if (ids.length === 1) draw.selectFeature(ids[0]!);
  // The vertex last pressed: a piece and the index of its coordinate.
  let pressed: { id: string; index: number } | null = null;
  const coordinatesOf = (id: string) => {
    const g = draw.getSnapshotFeature(id)?.geometry;
    if (!g || g.type === 'Point') return null;
    return g.type === 'Polygon' ? g.coordinates[0]! : g.coordinates;
  };
  const onPress = (event: MapMouseEvent | MapTouchEvent) => {
    pressed = null;
    let nearest = VERTEX_PX;
    for (const id of ids)
      coordinatesOf(id)?.forEach((c, index) => {
        const distance = map.project(c as [number, number]).dist(event.point);
        if (distance <= nearest) {
          nearest = distance;
          pressed = { id, index };
        }
      });
  };
  map.on('mousedown', onPress);
  map.on('touchstart', onPress);
  const stop = () => {
    map.off('mousedown', onPress);
    map.off('touchstart', onPress);
    draw.clear();
    draw.setMode('static');
  };
  const current = () => {
    const edited = ids.map((id) => draw.getSnapshotFeature(id)?.geometry as GeoJSON.Geometry | undefined);
    return edited.every(Boolean) ? join(edited as GeoJSON.Geometry[]) : null;
  };
  return {
    current,
    end() {
      const edited = current();
      stop();
      return edited;
    },
    deleteVertex() {
      const at = pressed as { id: string; index: number } | null;
      const g = at && draw.getSnapshotFeature(at.id)?.geometry;
      if (!at || !g) return false;
      if (g.type === 'LineString') {
        if (g.coordinates.length <= 2) return false;
        draw.updateFeatureGeometry(at.id, {
          type: 'LineString',
          coordinates: g.coordinates.filter((_, i) => i !== at.index),
        });
      } else if (g.type === 'Polygon') {
        // A ring is closed: its first vertex is its last too.
        const open = g.coordinates[0]!.slice(0, -1);
        if (open.length <= 3) return false;
        const kept = open.filter((_, i) => i !== at.index % open.length);
        draw.updateFeatureGeometry(at.id, { type: 'Polygon', coordinates: [[...kept, kept[0]!]] });
      } else return false;
      pressed = null;
      return true;
    },
  };
}
