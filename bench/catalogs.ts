/**
 * What the message catalogs add to the web application's first load (`BENCH_ONLY=catalogs`,
 * also part of `web`; see bench/README.md): the page's i18n module (web/src/i18n/index.ts:
 * i18next, its language detector and the English catalog, which come with the application)
 * built alone by Vite as the application builds it, minified, `gzip -9`. Each other language
 * is a chunk of its own, fetched instead when the page speaks it: the largest is reported too.
 */
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { build, type Rolldown } from 'vite';
import { ROOT, type Row } from './harness.js';

/** The catalogs may add at most this many gzipped kilobytes to the first load. */
const TARGET_KB = 30;

export async function runCatalogsBench(): Promise<{ rows: Row[]; missed: string[] }> {
  const output = (await build({
    configFile: false,
    logLevel: 'silent',
    build: {
      write: false,
      minify: true,
      lib: { entry: path.join(ROOT, 'web/src/i18n/index.ts'), formats: ['es'], fileName: 'i18n' },
    },
  })) as Rolldown.RolldownOutput | Rolldown.RolldownOutput[];
  const chunks = [output]
    .flat()
    .flatMap((o) => o.output)
    .filter((c): c is Rolldown.OutputChunk => c.type === 'chunk');
  const kb = (c: Rolldown.OutputChunk) => gzipSync(c.code, { level: 9 }).length / 1024;
  const first = kb(chunks.find((c) => c.isEntry)!);
  const others = chunks.filter((c) => !c.isEntry).map((c) => ({ name: c.name, kb: kb(c) }));
  const largest = others.reduce((a, b) => (b.kb > a.kb ? b : a), { name: 'none', kb: 0 });
  console.log(
    `   catalogs: first load ${first.toFixed(1)} kB gzipped; other languages ${others.map((o) => `${o.name} ${o.kb.toFixed(1)} kB`).join(', ')}`,
  );
  const met = first <= TARGET_KB;
  const rows: Row[] = [
    [
      'web: catalogs on the first load, gzipped (i18next + English)',
      `${first.toFixed(1)} kB`,
      'n/a',
      'n/a',
      `<= ${TARGET_KB} kB`,
      met ? 'yes' : 'NO',
    ],
    [
      `web: another language's catalog, fetched instead (largest: ${largest.name})`,
      `${largest.kb.toFixed(1)} kB`,
      'n/a',
      'n/a',
      'none',
      'n/a',
    ],
  ];
  return {
    rows,
    missed: met ? [] : [`catalogs on the first load: ${first.toFixed(1)} kB (target <= ${TARGET_KB} kB)`],
  };
}
