import { type Map as MapLibreMap, Marker } from 'maplibre-gl';
import { colourOf, type RoomPresence, type View } from './presence';

/** This page sends at most one pointer per this many ms (about 16 a second; the service relays one per 50 ms). */
const POINTER_EVERY_MS = 60;
/** And at most one view per this many ms while the map moves (the last one always goes). */
const VIEW_EVERY_MS = 100;

/**
 * Presence on the map: sends this page's pointer and view, draws the others' named cursors in
 * their colours, and moves the map with the view of the one this page follows (until the map is
 * moved here). Returns a function that unbinds it all.
 */
export function bindPresence(map: MapLibreMap, presence: RoomPresence): () => void {
  const currentView = (): View => {
    const { lng, lat } = map.getCenter().wrap();
    return { lng, lat, zoom: map.getZoom(), bearing: map.getBearing(), pitch: map.getPitch() };
  };
  presence.currentView = currentView;

  const sendPointer = throttle((lng: number, lat: number) => presence.pointer(lng, lat), POINTER_EVERY_MS);
  const onMouseMove = (event: { lngLat: { wrap(): { lng: number; lat: number } } }) => {
    const { lng, lat } = event.lngLat.wrap();
    sendPointer(lng, lat);
  };

  // Moves this page makes to follow someone are not this person's own: they neither stop the
  // following nor are sent as this page's view.
  let applyingFollow = false;
  const sendView = throttle(() => presence.view(currentView()), VIEW_EVERY_MS);
  const onMove = () => !applyingFollow && sendView();
  const onMoveStart = (event: { originalEvent?: unknown }) => {
    if (!applyingFollow && event.originalEvent && presence.following.get()) presence.following.set(null);
  };
  const follow = (view: View | undefined) => {
    if (!view) return;
    applyingFollow = true;
    try {
      map.jumpTo({ center: [view.lng, view.lat], zoom: view.zoom, bearing: view.bearing ?? 0, pitch: view.pitch ?? 0 });
    } finally {
      applyingFollow = false;
    }
  };
  const stopFollowed = presence.following.subscribe((key) => key && follow(presence.views.get(key)));
  const stopViews = presence.viewArrived.subscribe((arrived) => {
    if (arrived && arrived.key === presence.following.get()) follow(arrived.view);
  });

  const markers = new Map<string, { marker: Marker; label: HTMLElement }>();
  const drawCursors = () => {
    const cursors = presence.cursors.get();
    for (const [key, { marker }] of markers) {
      if (cursors.has(key)) continue;
      marker.remove();
      markers.delete(key);
    }
    for (const [key, cursor] of cursors) {
      let shown = markers.get(key);
      if (!shown) {
        const { element, label } = cursorElement(colourOf(key));
        shown = { marker: new Marker({ element, anchor: 'top-left' }).setLngLat(cursor).addTo(map), label };
        markers.set(key, shown);
      }
      shown.label.textContent = cursor.name;
      shown.marker.setLngLat(cursor);
      const element = shown.marker.getElement();
      element.dataset.name = cursor.name;
      element.dataset.lngLat = `${cursor.lng},${cursor.lat}`;
    }
  };
  drawCursors();
  const stopCursors = presence.cursors.subscribe(drawCursors);

  // What the map shows, on its element (what the browser tests and the benchmark read).
  const showView = () => (map.getContainer().dataset.view = JSON.stringify(currentView()));
  showView();
  map.on('mousemove', onMouseMove);
  map.on('move', onMove);
  map.on('moveend', showView);
  map.on('movestart', onMoveStart);
  presence.view(currentView());
  return () => {
    map.off('mousemove', onMouseMove);
    map.off('move', onMove);
    map.off('movestart', onMoveStart);
    map.off('moveend', showView);
    stopFollowed();
    stopViews();
    stopCursors();
    for (const { marker } of markers.values()) marker.remove();
    if (presence.currentView === currentView) presence.currentView = null;
  };
}

/** An arrow in the person's colour with their name beside it. */
function cursorElement(colour: string) {
  const element = document.createElement('div');
  element.className = 'presence-cursor';
  element.dataset.testid = 'presence-cursor';
  element.style.setProperty('--who', colour);
  element.innerHTML =
    '<svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true"><path d="M1 1 L1 14 L5 10 L8 15 L10 14 L7 9 L13 9 Z" /></svg>';
  const label = document.createElement('span');
  element.append(label);
  return { element, label };
}

/**
 * Calls `fn` at most once per `ms`: at once when it may, else once at the end of the wait with
 * the latest arguments (so the last position is always sent).
 */
function throttle<A extends unknown[]>(fn: (...args: A) => void, ms: number): (...args: A) => void {
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending: A | null = null;
  return (...args: A) => {
    const wait = last + ms - performance.now();
    if (wait <= 0 && !timer) {
      last = performance.now();
      fn(...args);
      return;
    }
    pending = args;
    timer ??= setTimeout(
      () => {
        timer = null;
        last = performance.now();
        if (pending) fn(...pending);
        pending = null;
      },
      Math.max(wait, 0),
    );
  };
}
