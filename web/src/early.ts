// The page's entry: its first reads leave as soon as this small script runs (api/early-reads.ts),
// with MapLibre's worker (map/early-worker.ts) and, once the deck is read, its first slide's
// tiles (map/first-slide-tiles.ts); then the application (MapLibre most of it) loads and compiles.
import { mapPath, sendFirstReads } from './api/early-reads';
import { startMapWorker } from './map/early-worker';
import { warmFirstSlideTiles } from './map/first-slide-tiles';
import { fittedDeck } from './map/slide-fit';

const deck = sendFirstReads(location.pathname);
deck?.then((read) => warmFirstSlideTiles(fittedDeck(read))).catch(() => undefined);
if (mapPath(location.pathname)) startMapWorker();
import('./main').catch((error) => {
  // A script that did not load (a network failure, or a new release replacing it meanwhile).
  console.error(error);
  document.getElementById('app')!.textContent = 'Maproom could not be loaded. Reload the page to try again.';
});
