import { defineConfig } from 'vite';

// The web application: built into dist/web, served by the service (src/http/web-app.ts).
// `npm run dev:web` proxies /api to a service on :8080.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  worker: { format: 'es' },
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    // MapLibre is most of the JavaScript; a chunk of its own is cached across app releases.
    chunkSizeWarningLimit: 1400,
    rolldownOptions: { output: { advancedChunks: { groups: [{ name: 'maplibre', test: /maplibre-gl/ }] } } },
  },
  server: { proxy: { '/api': { target: 'http://127.0.0.1:8080', ws: true } } },
});
