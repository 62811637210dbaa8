// The page's entry: its first reads leave as soon as this small script runs (api/early-reads.ts),
// then the application (MapLibre most of it) loads and compiles.
import { sendFirstReads } from './api/early-reads';

sendFirstReads(location.pathname);
import('./main').catch((error) => {
  // A script that did not load (a network failure, or a new release replacing it meanwhile).
  console.error(error);
  document.getElementById('app')!.textContent = 'Maproom could not be loaded. Reload the page to try again.';
});
