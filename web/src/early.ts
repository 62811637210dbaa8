// The page's entry: its first reads leave as soon as this small script runs (api/early-reads.ts),
// then the application (MapLibre most of it) loads and compiles.
import { sendFirstReads } from './api/early-reads';

sendFirstReads(location.pathname);
void import('./main');
