import type { GeoJSONSource, Map as MapLibreMap, MapLayerMouseEvent, MapMouseEvent, MapTouchEvent } from 'maplibre-gl';
import { CLUSTER_LAYER, DRAWING_LAYERS, MARKER_LAYERS } from '../map/room-layers';
import { moveMarkerTo, placeMarker, placesMarker } from './placing';
import { identifyRasters } from './raster-identify';
import type { RoomContextValue } from './room-context';
import { showsPast } from './time-view';

/**
 * Clicks and drags on the map: select a marker, drawing or layer feature; zoom into a cluster;
 * add or move a marker where the map is clicked (placing.ts); drag a marker to move it.
 * Returns a function that unbinds them.
 */
export function bindMapInteractions(map: MapLibreMap, room: RoomContextValue): () => void {
  const { model, selection, mode, canEdit } = room;
  const vectorLayerIds = () =>
    model
      .get()!
      .layers.flatMap((l) => [`vector-${l.id}-fill`, `vector-${l.id}-line`, `vector-${l.id}-point`])
      .filter((id) => map.getLayer(id));

  // Drawing or measuring: the clicks that finish a shape (a double-click on its last point)
  // neither zoom the map nor select what is under them, until the next press of the pointer.
  let drawingEnded = false;
  const nextPress = (event: MapMouseEvent | MapTouchEvent) => {
    // The second press of the double-click that finishes the shape is still part of it.
    if (event.originalEvent.detail > 1) return;
    map.off('mousedown', nextPress);
    map.off('touchstart', nextPress);
    drawingEnded = false;
    map.doubleClickZoom.enable();
  };
  // terra-draw gives the double-click zoom back as it finishes a shape, before the double-click
  // event: it is taken again here until that press is over.
  let before = mode.get();
  const stopDrawWatch = mode.subscribe((now) => {
    const wasDrawing = before === 'draw';
    before = now;
    if (now === 'draw' || !wasDrawing || drawingEnded) return;
    drawingEnded = true;
    map.doubleClickZoom.disable();
    map.on('mousedown', nextPress);
    map.on('touchstart', nextPress);
  });

  const onClick = async (event: MapMouseEvent) => {
    // A past view is only looked at: nothing is selected or added.
    if (mode.get() === 'draw' || mode.get() === 'reshape' || drawingEnded || showsPast(room.timeView.get())) return;
    if (placesMarker(mode.get())) return placeMarker(room, event.lngLat);
    const [hit] = map.queryRenderedFeatures(event.point, {
      layers: [CLUSTER_LAYER, ...MARKER_LAYERS, ...DRAWING_LAYERS, ...vectorLayerIds()],
    });
    if (!hit) {
      selection.set(null);
      // Nothing of the room's own under the click: a raster's band values, if one is shown there.
      await identifyRasters(map, room, event.lngLat);
      return;
    }
    if (hit.layer.id === CLUSTER_LAYER) {
      const source = map.getSource('markers') as GeoJSONSource;
      const zoom = await source.getClusterExpansionZoom(hit.properties.cluster_id as number);
      map.easeTo({ center: (hit.geometry as GeoJSON.Point).coordinates as [number, number], zoom });
    } else if (MARKER_LAYERS.includes(hit.layer.id)) {
      selection.set({ kind: 'marker', id: hit.properties.id as string });
    } else if (DRAWING_LAYERS.includes(hit.layer.id)) {
      selection.set({ kind: 'drawing', id: hit.properties.id as string });
    } else {
      const layerId = hit.layer.id.replace(/^vector-(.*)-(fill|line|point)$/, '$1');
      // Tiles carry each feature's id: its attributes are shown, the feature highlighted.
      selection.set({ kind: 'layer', id: layerId, ...(typeof hit.id === 'number' && { featureId: hit.id }) });
    }
  };

  // Dragging a marker: the marker leaves its layer for a drag layer, and is saved where it is dropped.
  let dragging: { id: string; moved: boolean } | null = null;
  const dragSource = () => map.getSource('marker-drag') as GeoJSONSource;
  const showDrag = (lng: number, lat: number) =>
    dragSource().setData({ type: 'Feature', geometry: { type: 'Point', coordinates: [lng, lat] }, properties: {} });
  const onDown = (event: MapLayerMouseEvent) => {
    if (!canEdit || showsPast(room.timeView.get()) || mode.get() !== 'browse' || !event.features?.[0]) return;
    event.preventDefault();
    dragging = { id: event.features[0].properties.id as string, moved: false };
    map.getCanvas().style.cursor = 'grabbing';
    map.on('mousemove', onMove);
    map.once('mouseup', onUp);
  };
  const onMove = (event: MapMouseEvent) => {
    if (!dragging) return;
    if (!dragging.moved) {
      dragging.moved = true;
      for (const layer of MARKER_LAYERS)
        map.setFilter(layer, [...(map.getFilter(layer) as unknown[]), ['!=', ['get', 'id'], dragging.id]] as never);
    }
    showDrag(event.lngLat.lng, event.lngLat.lat);
  };
  const onUp = async (event: MapMouseEvent) => {
    map.off('mousemove', onMove);
    map.getCanvas().style.cursor = '';
    const drag = dragging;
    dragging = null;
    if (!drag?.moved) return;
    for (const layer of MARKER_LAYERS) map.setFilter(layer, (map.getFilter(layer) as unknown[]).slice(0, -1) as never);
    dragSource().setData({ type: 'FeatureCollection', features: [] });
    await moveMarkerTo(room, drag.id, event.lngLat);
  };
  const pointer = () => (map.getCanvas().style.cursor = mode.get() === 'browse' ? 'pointer' : '');
  const noPointer = () => (map.getCanvas().style.cursor = '');
  const crosshair = mode.subscribe((m) => (map.getCanvas().style.cursor = placesMarker(m) ? 'crosshair' : ''));

  map.on('click', onClick);
  for (const layer of MARKER_LAYERS) {
    map.on('mousedown', layer, onDown);
    map.on('mouseenter', layer, pointer);
    map.on('mouseleave', layer, noPointer);
  }
  map.on('mouseenter', CLUSTER_LAYER, pointer);
  map.on('mouseleave', CLUSTER_LAYER, noPointer);
  return () => {
    stopDrawWatch();
    map.off('mousedown', nextPress);
    map.off('touchstart', nextPress);
    crosshair();
    map.off('click', onClick);
    for (const layer of MARKER_LAYERS) {
      map.off('mousedown', layer, onDown);
      map.off('mouseenter', layer, pointer);
      map.off('mouseleave', layer, noPointer);
    }
  };
}
