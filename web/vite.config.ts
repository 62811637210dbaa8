import { defineConfig, type Plugin } from 'vite';

/**
 * The page's entry is small (src/early.ts: it sends the page's first reads) and imports the
 * application; this puts the application's scripts and styles in the HTML too, so that they
 * download beside the entry, not after it has run.
 */
function preloadApplication(): Plugin {
  return {
    name: 'maproom-preload-application',
    transformIndexHtml: {
      order: 'post',
      handler(_html, context) {
        const chunks = Object.values(context.bundle ?? {}).flatMap((c) => (c.type === 'chunk' ? [c] : []));
        const main = chunks.find((c) => c.facadeModuleId?.endsWith('/src/main.tsx'));
        if (!main) return [];
        const scripts = [main.fileName, ...main.imports.filter((f) => f !== context.chunk?.fileName)];
        // MapLibre's styles first, as the application imports them: its own come after.
        const styles = [...chunks.filter((c) => main.imports.includes(c.fileName)), main].flatMap((c) => [
          ...(c.viteMetadata?.importedCss ?? []),
        ]);
        return [
          ...scripts.map((file) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `/${file}` },
            injectTo: 'head' as const,
          })),
          ...styles.map((file) => ({
            tag: 'link',
            attrs: { rel: 'stylesheet', crossorigin: true, href: `/${file}` },
            injectTo: 'head' as const,
          })),
        ];
      },
    },
  };
}

// The web application: built into dist/web, served by the service (src/http/web-app.ts).
// `npm run dev:web` proxies /api to a service on :8080.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  worker: { format: 'es' },
  plugins: [preloadApplication()],
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    // MapLibre is most of the JavaScript; a chunk of its own is cached across app releases. Its
    // code and styles only: the address of its worker's script (`?worker&url`) is a string the
    // small entry needs, which must not wait for MapLibre's chunk.
    chunkSizeWarningLimit: 1400,
    rolldownOptions: {
      output: { advancedChunks: { groups: [{ name: 'maplibre', test: /maplibre-gl[^?]*\.(m?js|css)$/ }] } },
    },
  },
  server: { proxy: { '/api': { target: 'http://127.0.0.1:8080', ws: true } } },
});
