// MapLibre's worker, bundled by Vite as its own file (its default address does not survive bundling).
import mapWorkerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?worker&url';

/**
 * MapLibre's worker is started by the page's entry (src/early.ts), before MapLibre's own 1.2 MB
 * have loaded and run, and handed to MapLibre when it makes its workers. A worker's script is
 * fetched and compiled on its own thread, but starting it takes turns of the page's main
 * thread, which MapLibre's start and the first render keep busy: started by MapLibre, the
 * worker was ready 500 to 900 ms into the opening, and the deck's tiles and the room's
 * markers waited for it.
 */
let started: Worker | undefined;

export { mapWorkerUrl };

/** Starts MapLibre's worker (on the pages with a map); in a browser that cannot, MapLibre starts its own. */
export function startMapWorker() {
  try {
    started = new Worker(mapWorkerUrl, { type: 'module' });
  } catch (error) {
    console.warn(error);
  }
}

/**
 * Runs `make` (MapLibre's `prewarm`, which makes its workers at once, with the global `Worker`)
 * so that the first worker of MapLibre's script it makes is the one started early; any more
 * (MapLibre makes one, but up to three in Safari on larger machines) start as usual. Should a
 * MapLibre release make its workers later, the early one is not taken, and is ended.
 */
export function handOverMapWorker(make: () => void) {
  const NativeWorker = globalThis.Worker;
  const address = new URL(mapWorkerUrl, location.href).href;
  globalThis.Worker = function Worker(url: string | URL, options?: WorkerOptions) {
    const early = started;
    if (early && new URL(url, location.href).href === address) {
      started = undefined;
      return early;
    }
    return new NativeWorker(url, options);
  } as unknown as typeof Worker;
  try {
    make();
  } finally {
    globalThis.Worker = NativeWorker;
    started?.terminate();
    started = undefined;
  }
}
