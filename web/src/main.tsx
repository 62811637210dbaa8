import { render } from 'preact';
import 'maplibre-gl/dist/maplibre-gl.css';
import { prewarm, setWorkerUrl } from 'maplibre-gl';
// MapLibre's worker, bundled by Vite as its own file (its default address does not survive bundling).
import mapWorkerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?worker&url';
import './styles.css';
import { route } from './router';
import { useStore } from './store';
import { HomePage } from './pages/home-page';
import { RoomPage } from './pages/room-page';
import { DeckPage } from './pages/deck-page';
import { deckPath, roomPath } from './api/early-reads';
import { VerifyEmailPage } from './pages/verify-email-page';

setWorkerUrl(mapWorkerUrl);
// On the pages with a map, MapLibre's worker starts loading now, not when the map is made: its
// script takes a while to compile, and the deck's tiles and the room's markers wait for it.
if (roomPath(location.pathname) || deckPath(location.pathname)) prewarm();

function App() {
  const path = useStore(route).split('?')[0]!;
  const room = roomPath(path);
  if (room) return <RoomPage key={room} roomId={room} />;
  const deck = deckPath(path);
  if (deck) return <DeckPage key={deck} roomId={deck} />;
  if (path === '/verify-email') return <VerifyEmailPage />;
  return <HomePage />;
}

render(<App />, document.getElementById('app')!);
