import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Map as MapLibreMap } from 'maplibre-gl';
import { baseMapAfter, createMap, setBaseLayer, setRoomBasemaps, whenStyleReady } from '../map/create-map';
import { backgroundColor } from '../map/base-layers';
import type { TileView } from '../map/view-tiles';
import { MarkerPreview } from '../map/marker-preview';
import {
  addContentLayers,
  addRoomOverlays,
  previewPoints,
  setDrawings,
  setMarkers,
  setRasterLayers,
  setVectorLayers,
} from '../map/room-layers';
import { ClusterCounts, DrawingLabels, labelledLayers, MapLabels } from '../map/map-labels';
import { orderedLayers } from '../map/layer-style';
import { IconImages } from '../map/icon-images';
import { bindMapInteractions } from './map-interactions';
import { useRoom, type RoomContextValue } from './room-context';
import { useStore } from '../store';
import type { RoomInfo } from '../api/types';
import type { RoomState } from './room-model';
import { shownState } from './time-view';
import { openAtContent, openingExtent } from './zoom-to-content';
import { bindKeyboardPlacing } from './placing';
import { bindLocateMe } from './locate';
import { t } from '../i18n/index.js';

/**
 * The room's map: made at once from the room's view, its content added when the room has loaded.
 * A room loaded by then, at a view known beforehand (not its content's extent), has its markers'
 * preview drawn first and its map made in the task after that frame: making the map (its WebGL
 * context) holds the page for a while, and the markers are what the page is opened for.
 */
export function MapView({ info }: { info: RoomInfo }) {
  const room = useRoom();
  const state = useStore(room.model);
  const container = useRef<HTMLDivElement>(null);
  // The markers' preview, until the map draws them itself.
  const preview = useRef<MarkerPreview | null>(null);
  // The map once made (its view set), then once its style is loaded (content can be added).
  const [made, setMade] = useState<MapLibreMap | null>(null);
  const [map, setMap] = useState<MapLibreMap | null>(null);
  // Layout effects, here and below: the map is made, and the content put on it, as soon as the
  // room is rendered, not after its frame is drawn (late, in a browser drawing in software).
  useLayoutEffect(() => {
    const { embed, opening } = room;
    const element = container.current!;
    const view =
      embed?.view ??
      (info.defaultViewLat != null && info.defaultViewLng != null
        ? { lat: info.defaultViewLat, lng: info.defaultViewLng, zoom: info.defaultViewZoom ?? 10 }
        : { lat: 20, lng: 0, zoom: 1.5 });
    // What shows before the map draws: its background.
    element.style.background = backgroundColor(info.defaultTheme);
    let created: MapLibreMap | undefined;
    const make = () => {
      created = createMap(
        element,
        view,
        embed?.basemap ?? info.defaultBaseLayer ?? null,
        info.defaultTheme ?? null,
        {},
        embed,
      );
      setRoomBasemaps(created, info.basemaps ?? []);
      opening.mapMade();
      // The markers first: the offline base map's world of coastlines would hold them back.
      baseMapAfter(created, opening.settled());
      const shown = created;
      whenStyleReady(shown, () => {
        addContentLayers(shown);
        addRoomOverlays(shown);
        setMap(shown);
        opening.styleReady();
      });
      setMade(shown);
    };
    const loaded = room.model.get();
    if (loaded && (embed?.view || !openingExtent(loaded))) preview.current = showPreview(element, view, room);
    let stopMaking: () => void = () => undefined;
    if (preview.current?.drawn) stopMaking = opening.afterNextFrame(make);
    else make();
    const stopShowing = opening.showOn(element);
    return () => {
      stopMaking();
      stopShowing();
      preview.current?.remove();
      created?.remove();
    };
  }, []);
  const loaded = state !== null;
  // The view and the markers' preview (unless drawn before the map) need the map made, not its
  // style: they come as soon as the room has loaded, which on opening is often before
  // MapLibre's first frames.
  useLayoutEffect(() => {
    if (!made || !loaded) return;
    if (!preview.current) {
      // An embed's address may give its own view.
      if (!room.embed?.view) openAtContent(made, room.model.get()!);
      const center = made.getCenter();
      const view = {
        lat: center.lat,
        lng: center.lng,
        zoom: made.getZoom(),
        bearing: made.getBearing(),
        pitch: made.getPitch(),
      };
      preview.current = showPreview(made.getContainer(), view, room);
    }
    removeWhenDrawn(made, preview.current, room.opening);
  }, [made, loaded]);
  // Bound again when the role changes (the owner may change it while the page is open).
  useLayoutEffect(() => (map && loaded ? showContent(map, room) : undefined), [map, loaded, room.canEdit]);
  return <div ref={container} class="map" role="application" aria-label={t('room:map.label')} data-testid="map" />;
}

/**
 * Draws the markers' preview at `view` (map/marker-preview.ts) over the map's `element`, and the
 * User Timing mark `maproom:markers-drawn` (bench/web.ts, and the browser's performance panel)
 * with its frame: the first frame with markers in view, the preview's or, without one, the
 * map's own (`maproom:map-markers-drawn` is the map's own; `maproom:map-idle` follows once the
 * layers are drawn too).
 */
function showPreview(element: HTMLElement, view: TileView, room: RoomContextValue): MarkerPreview {
  const shown = shownState(room.model.get()!, room.timeView.get(), Date.now());
  const preview = new MarkerPreview(element, view, previewPoints(shown.markers.values()));
  if (preview.drawn) {
    room.opening.previewShown();
    room.opening.when(
      () => room.opening.has('previewed'),
      () => markDrawn(room.opening),
    );
  }
  return preview;
}

const marked = new WeakSet<RoomContextValue['opening']>();
/** The mark, once per opening. */
function markDrawn(opening: RoomContextValue['opening']) {
  if (!marked.has(opening)) performance.mark('maproom:markers-drawn');
  marked.add(opening);
}

/** Takes the preview away in the frame the map draws its markers, or as the map moves (the preview would be out of place). */
function removeWhenDrawn(map: MapLibreMap, preview: MarkerPreview, opening: RoomContextValue['opening']) {
  const moved = () => {
    map.off('sourcedata', loaded);
    preview.remove();
  };
  const loaded = (event: { sourceId?: string; isSourceLoaded?: boolean }) => {
    if (event.sourceId !== 'markers' || !event.isSourceLoaded || map.querySourceFeatures('markers').length === 0)
      return;
    map.off('sourcedata', loaded);
    map.off('movestart', moved);
    map.once('render', () => {
      markDrawn(opening);
      performance.mark('maproom:map-markers-drawn');
      preview.remove();
    });
  };
  map.on('sourcedata', loaded);
  map.once('movestart', moved);
}

/** Keeps the map in step with the room's state and binds the map's clicks; returns the undo. */
function showContent(map: MapLibreMap, room: RoomContextValue): () => void {
  const { model, opening } = room;
  // The room now, or as the timeline's slider shows it (a past moment, the markers still ahead).
  const shown = () => shownState(model.get()!, room.timeView.get(), Date.now());
  const icons = new IconImages(map, room.roomId, () => setMarkers(map, shown().markers.values(), icons.loaded));
  const clusters = new ClusterCounts(map);
  const labels = new DrawingLabels(map);
  const titles = new MapLabels(map);
  let last: RoomState | null = null;
  // Layers wait until the markers are loaded (the opening `drawn`): MapLibre parses tiles and
  // clusters markers in the same worker, and a big layer's first tiles would hold the room's
  // markers back.
  let layersShown = false;
  const draw = (state: RoomState) => {
    const hidden = room.hidden.get();
    icons.want(state.icons);
    if (!last || last.markers !== state.markers || last.icons !== state.icons)
      setMarkers(map, state.markers.values(), icons.loaded);
    if (!last || last.drawings !== state.drawings) {
      setDrawings(map, state.drawings.values());
      labels.set(state.drawings.values());
    }
    if (layersShown) {
      setVectorLayers(map, state.layers, hidden);
      setRasterLayers(map, state.rasters, hidden);
      titles.setLayers(labelledLayers(orderedLayers(state.layers), hidden));
    }
    if (!last || last.room.basemaps !== state.room.basemaps) setRoomBasemaps(map, state.room.basemaps ?? []);
    if (
      last &&
      !room.embed?.basemap &&
      (last.room.defaultBaseLayer !== state.room.defaultBaseLayer || last.room.defaultTheme !== state.room.defaultTheme)
    ) {
      setBaseLayer(map, state.room.defaultBaseLayer, state.room.defaultTheme);
    }
    last = state;
  };
  // The map's own sources when the opening asks for them (a frame after the preview's: handing
  // the markers to MapLibre's worker, the drawings and their labels are a long task of their own).
  let drawing = false;
  const redraw = () => drawing && draw(shown());
  const stopFirstDraw = opening.when(
    (state) => state.contentDue,
    () => {
      drawing = true;
      draw(shown());
      whenMarkersLoaded(map, () => opening.drawn());
    },
  );
  const stopLayers = opening.when(
    () => opening.has('drawn'),
    () => {
      layersShown = true;
      draw(shown());
      map.once('idle', () => performance.mark('maproom:map-idle'));
    },
  );
  const stopModel = model.subscribe(redraw);
  const stopHidden = room.hidden.subscribe(redraw);
  const stopTime = room.timeView.subscribe(redraw);
  const stopInteractions = bindMapInteractions(map, room);
  const stopPlacing = bindKeyboardPlacing(map, room);
  const stopLocating = bindLocateMe(map, room);
  const stopSelection = highlightSelection(map, room);
  room.map.set(map);
  map.getContainer().dataset.ready = 'true';
  return () => {
    stopFirstDraw();
    stopLayers();
    stopModel();
    stopHidden();
    stopTime();
    stopInteractions();
    stopPlacing();
    stopLocating();
    stopSelection();
    clusters.remove();
    labels.remove();
    titles.remove();
    room.map.set(null);
  };
}

/** Calls `loaded` once the markers' source has its data and tiles (not waiting for the base map's tiles). */
function whenMarkersLoaded(map: MapLibreMap, loaded: () => void) {
  const check = () => {
    if (!map.isSourceLoaded('markers')) return;
    map.off('sourcedata', check);
    loaded();
  };
  map.on('sourcedata', check);
}

/** Outlines the selected marker. */
function highlightSelection(map: MapLibreMap, room: RoomContextValue) {
  let previous: string | null = null;
  return room.selection.subscribe((selection) => {
    if (previous) map.setFeatureState({ source: 'markers', id: previous }, { selected: false });
    previous = selection?.kind === 'marker' ? selection.id : null;
    if (previous) map.setFeatureState({ source: 'markers', id: previous }, { selected: true });
  });
}
