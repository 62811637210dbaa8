import type { Map as MapLibreMap } from 'maplibre-gl';
import {
  TerraDraw,
  TerraDrawLineStringMode,
  TerraDrawPointMode,
  TerraDrawPolygonMode,
  TerraDrawSelectMode,
  type GeoJSONStoreFeatures,
} from 'terra-draw';
import { TerraDrawMapLibreGLAdapter } from 'terra-draw-maplibre-gl-adapter';
import type { Drawing } from '../api/types';

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

/** Puts a stored drawing into the editor to move its vertices; the returned function ends it with the new geometry. */
export function editShape(map: MapLibreMap, drawing: Drawing): () => GeoJSON.Geometry | null {
  const draw = toolOf(map);
  draw.clear();
  const geometry = drawing.geometry as unknown as GeoJSON.Geometry;
  const mode = geometry.type === 'Polygon' ? 'polygon' : geometry.type === 'LineString' ? 'linestring' : 'point';
  const id = crypto.randomUUID();
  draw.addFeatures([{ id, type: 'Feature', geometry, properties: { mode } } as GeoJSONStoreFeatures]);
  draw.setMode('select');
  draw.selectFeature(id);
  return () => {
    const edited = draw.getSnapshotFeature(id)?.geometry as GeoJSON.Geometry | undefined;
    draw.clear();
    draw.setMode('static');
    return edited ?? null;
  };
}
