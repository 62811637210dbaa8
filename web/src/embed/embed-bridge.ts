import type { Map as MapLibreMap } from 'maplibre-gl';
import { viewOf } from '../map/create-map';
import type { RoomContextValue } from '../room/room-context';

/**
 * The embed page's side of the embed script (public/embed.js): messages through `postMessage`
 * with its host page, each `{maproom: 1, type, ...}`. The page says `here` (to any origin, with
 * nothing in it) once its map is up; the host says `hello` (then, or on the frame's load); the page
 * answers `ready` and from then on talks to that origin only, and listens to it only. Only the
 * page that frames it is heard (`event.source` is the parent; the browser's `ancestorOrigins`,
 * where it has them, must name the same origin), and the service's `frame-ancestors` decides
 * which pages may frame it at all.
 *
 * Host → page: `setView {view: {lat, lng, zoom}}`, `setLayers {layers: [id]}` (the layers
 * shown), `openMarker {markerId}`. Page → host: `ready {roomId, view, layers}`, `view {view}`
 * after each move, `click {lngLat, marker?}` on each click of the map. An embedded deck (no
 * `room`: its slides say what shows) answers `ready` with no layers, moves and tells its view
 * and clicks, and leaves `setLayers` and `openMarker` unanswered.
 */

type Message = { maproom: 1; type: string } & Record<string, unknown>;

const isMessage = (data: unknown): data is Message =>
  typeof data === 'object' &&
  data !== null &&
  (data as Message).maproom === 1 &&
  typeof (data as Message).type === 'string';

const finite = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);

/** The ids of the room's layers and rasters. */
const layerIds = (room: RoomContextValue | undefined) => {
  const state = room?.model.get();
  return [...(state?.layers ?? []), ...(state?.rasters ?? [])].map((layer) => layer.id);
};

export function bindEmbedBridge(map: MapLibreMap, roomId: string, room?: RoomContextValue): () => void {
  if (window.parent === window) return () => undefined;
  let host: string | null = null;
  const ancestor = location.ancestorOrigins?.[0];
  const send = (message: Record<string, unknown>) => {
    if (host) window.parent.postMessage({ maproom: 1, ...message }, host);
  };
  const shownLayers = () => layerIds(room).filter((id) => !room?.hidden.get().has(id));

  const onMessage = (event: MessageEvent) => {
    if (event.source !== window.parent || !isMessage(event.data)) return;
    if (ancestor && event.origin !== ancestor) return;
    const message = event.data;
    if (message.type === 'hello') {
      host = event.origin;
      send({ type: 'ready', roomId, view: viewOf(map), layers: shownLayers() });
      return;
    }
    if (event.origin !== host) return;
    if (message.type === 'setView') {
      const view = message.view as Record<string, unknown> | undefined;
      if (!view || !finite(view.lat) || !finite(view.lng) || Math.abs(view.lat) > 90 || Math.abs(view.lng) > 180)
        return;
      map.jumpTo({ center: [view.lng, view.lat], ...(finite(view.zoom) && { zoom: view.zoom }) });
    } else if (!room) {
      return;
    } else if (message.type === 'setLayers' && Array.isArray(message.layers)) {
      const shown = new Set(message.layers.filter((id): id is string => typeof id === 'string'));
      room.hidden.set(new Set(layerIds(room).filter((id) => !shown.has(id))));
    } else if (message.type === 'openMarker' && typeof message.markerId === 'string') {
      const marker = room.model.get()?.markers.get(message.markerId);
      if (!marker) return;
      room.selection.set({ kind: 'marker', id: marker.id });
      if (finite(marker.longitude) && finite(marker.latitude))
        map.easeTo({ center: [marker.longitude, marker.latitude] });
    }
  };
  const onMove = () => send({ type: 'view', view: viewOf(map) });
  const onClick = (event: { lngLat: { lat: number; lng: number } }) => {
    // After the map's own click handling has selected what was clicked.
    queueMicrotask(() => {
      const selected = room?.selection.get();
      const marker = selected?.kind === 'marker' ? room?.model.get()?.markers.get(selected.id) : undefined;
      send({
        type: 'click',
        lngLat: { lat: event.lngLat.lat, lng: event.lngLat.lng },
        ...(marker && { marker: { id: marker.id, title: marker.title ?? null } }),
      });
    });
  };
  addEventListener('message', onMessage);
  // The embed script answers with its hello: this says only that a page is here to greet.
  window.parent.postMessage({ maproom: 1, type: 'here' }, '*');
  map.on('moveend', onMove);
  map.on('click', onClick);
  return () => {
    removeEventListener('message', onMessage);
    map.off('moveend', onMove);
    map.off('click', onClick);
  };
}
