/**
 * The shape of the code, checked: no module imports a higher layer, and the domains under
 * src/modules import each other without cycles. Layers, lowest first (docs/patterns.md):
 * base files (errors, ids, emails, config, schema-types, schema-problems) < geo, db < geo-engine (base, geo),
 * infra < auth < http < modules < descriptors (src/modules/<domain>/<domain>.module.ts) < app, jobs, server;
 * backup (maproom-admin) sits on base, db and infra, beside the service.
 * geo/ is pure: no file system, processes, threads,
 * sharp or SQLite (those are geo-engine's). The web application (web/src) has its own layers, checked below.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const REPO = path.resolve(SRC, '..');

/** What each part of src/ may import from (besides itself and packages). */
const MAY_IMPORT: Record<string, string[]> = {
  base: [],
  geo: ['base'],
  'geo-engine': ['base', 'geo'],
  db: ['base'],
  infra: ['base', 'db'],
  auth: ['base', 'db', 'infra'],
  http: ['base', 'db', 'infra', 'auth'],
  modules: ['base', 'geo', 'geo-engine', 'db', 'infra', 'auth', 'http'],
  // Each domain's descriptor builds it from what it needs of the others; no domain imports one.
  descriptors: ['base', 'geo', 'geo-engine', 'db', 'infra', 'auth', 'http', 'modules'],
  // Backups (maproom-admin) copy the database and the store whole, beside the service.
  backup: ['base', 'db', 'infra'],
  root: ['base', 'geo', 'geo-engine', 'db', 'infra', 'auth', 'http', 'modules', 'descriptors', 'backup'],
  // The command line is a client of the service: none of the service's code, only the API's generated types.
  cli: ['api-types'],
};

/** The web application's types of the API (generated from the OpenAPI document), as src/cli imports them. */
const API_TYPES = path.resolve(SRC, '../web/src/api/schema.ts');

const ROOT_FILES = new Set(['app.ts', 'jobs.ts', 'server.ts']);

function partOf(file: string): string {
  if (file === API_TYPES) return 'api-types';
  const relative = path.relative(SRC, file);
  const [first] = relative.split(path.sep);
  if (relative === first) return ROOT_FILES.has(first!) ? 'root' : 'base';
  if (first === 'modules' && file.endsWith('.module.ts')) return 'descriptors';
  return first!;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The relative specifiers a file imports from. */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/g)].map((m) => m[1]!);
}

/** The project files a file imports (relative specifiers, `.js` mapped back to `.ts`). */
function importsOf(file: string): string[] {
  return specifiersOf(file).map((s) => path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')));
}

interface Layering {
  root: string;
  partOf: (file: string) => string;
  importsOf: (file: string) => string[];
  mayImport: Record<string, string[]>;
}

/** Every import of a part that its layer may not make, as `file (part) imports target (part)`. */
function layerViolations(files: string[], { root, partOf, importsOf, mayImport }: Layering): string[] {
  return files.flatMap((file) => {
    const from = partOf(file);
    return importsOf(file)
      .map((target) => [target, partOf(target)] as const)
      .filter(([, to]) => to !== from && !mayImport[from]!.includes(to))
      .map(([target, to]) => `${path.relative(root, file)} (${from}) imports ${path.relative(root, target)} (${to})`);
  });
}

const files = sourceFiles(SRC);

/** Every module specifier a file imports or re-exports (packages too), static or dynamic. */
function packagesAndFilesOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
}

/**
 * What only geo-engine may use: the file system, processes, threads, streams, native image and
 * database libraries and the readers of files (geo/ is pure code, unit-tested without I/O).
 */
const IMPURE = [
  /^(node:)?(fs|fs\/promises|child_process|worker_threads|stream|stream\/promises|net|http|https|os|readline|zlib)$/,
  /^(sharp|better-sqlite3|geotiff|yauzl)(\/|$)/,
];

/** The domain of a file under src/modules. */
const domainOf = (file: string) => path.relative(path.join(SRC, 'modules'), file).split(path.sep)[0]!;

test('no file imports a layer above its own', () => {
  assert.deepEqual(layerViolations(files, { root: SRC, partOf, importsOf, mayImport: MAY_IMPORT }), []);
});

test('geo/ is pure: no file system, processes, threads, streams, sharp or SQLite', () => {
  const found: string[] = [];
  for (const file of files.filter((f) => partOf(f) === 'geo')) {
    for (const specifier of packagesAndFilesOf(file)) {
      if (IMPURE.some((pattern) => pattern.test(specifier)))
        found.push(`${path.relative(SRC, file)} imports ${specifier}`);
    }
  }
  assert.deepEqual(found, []);
});

test('the purity check sees what it is meant to judge', () => {
  // A guard against patterns that match nothing: geo-engine uses each kind of I/O.
  const engine = files.filter((f) => partOf(f) === 'geo-engine').flatMap(packagesAndFilesOf);
  for (const wanted of ['node:child_process', 'node:fs/promises', 'sharp', 'better-sqlite3', 'node:stream'])
    assert.ok(engine.includes(wanted) && IMPURE.some((pattern) => pattern.test(wanted)), wanted);
});

test('the domains under src/modules depend on each other without cycles', () => {
  const edges = new Map<string, Set<string>>();
  for (const file of files.filter((f) => partOf(f) === 'modules')) {
    for (const target of importsOf(file).filter((t) => partOf(t) === 'modules')) {
      const [a, b] = [domainOf(file), domainOf(target)];
      if (a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
    }
  }
  const cycles: string[] = [];
  const visit = (node: string, trail: string[]) => {
    if (trail.includes(node)) {
      cycles.push([...trail.slice(trail.indexOf(node)), node].join(' -> '));
      return;
    }
    for (const next of edges.get(node) ?? []) visit(next, [...trail, node]);
  };
  for (const node of edges.keys()) visit(node, []);
  assert.deepEqual([...new Set(cycles)], []);
});

test('the ingest uses no domain that uses it, and vector layers and rasters do not import each other', () => {
  const mustNotImport: Record<string, string[]> = {
    ingest: ['layers', 'rasters'],
    layers: ['rasters'],
    rasters: ['layers'],
  };
  const violations: string[] = [];
  for (const file of files.filter((f) => partOf(f) === 'modules')) {
    const forbidden = mustNotImport[domainOf(file)] ?? [];
    for (const target of importsOf(file).filter((t) => partOf(t) === 'modules')) {
      if (forbidden.includes(domainOf(target)))
        violations.push(`${path.relative(SRC, file)} imports ${path.relative(SRC, target)}`);
    }
  }
  assert.deepEqual(violations, []);
});

test('errors are built in errors.ts only; geo failures become errors in ingest/geo-failures.ts only', () => {
  const mapping = path.join(SRC, 'modules/ingest/geo-failures.ts');
  const violations: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (file !== path.join(SRC, 'errors.ts') && /new AppError\(/.test(text))
      violations.push(`${path.relative(SRC, file)} builds an AppError`);
    if (
      partOf(file) === 'modules' &&
      file !== mapping &&
      /instanceof (GdalError|VectorRejected|RasterRejected)\b/.test(text)
    )
      violations.push(`${path.relative(SRC, file)} maps a geo failure`);
  }
  assert.deepEqual(violations, []);
  assert.match(readFileSync(mapping, 'utf8'), /instanceof VectorRejected/, 'the check looks at the place that maps');
});

test('export and import know the domains through their exchanges only', () => {
  // exports/ walks the exchanges app.ts lists: it never imports a domain's exchange or
  // presenter (the columns and the shape of a row are the domain's), and the contract in
  // modules/exchange/ depends on no domain, so every domain can implement it.
  const violations: string[] = [];
  for (const file of files.filter((f) => partOf(f) === 'modules')) {
    for (const target of importsOf(file).filter((t) => partOf(t) === 'modules' && domainOf(t) !== domainOf(file))) {
      const named = `${path.relative(SRC, file)} imports ${path.relative(SRC, target)}`;
      if (domainOf(file) === 'exchange') violations.push(named);
      if (domainOf(file) === 'exports' && /\.(exchange|presenter)\.ts$/.test(target)) violations.push(named);
      if (domainOf(target) === 'exports' && file.endsWith('.exchange.ts')) violations.push(named);
    }
  }
  assert.deepEqual(violations, []);
});

test('the command line (src/cli) imports only itself and the generated API types, never the service', () => {
  const parts = new Set(files.filter((f) => partOf(f) === 'cli').flatMap((f) => importsOf(f).map(partOf)));
  assert.deepEqual([...parts].sort(), ['api-types', 'cli']);
});

test('the check sees the imports it is meant to judge', () => {
  // A guard against a regular expression that matches nothing: app.ts and the descriptors import every layer.
  const composition = files.filter((f) => ['root', 'descriptors'].includes(partOf(f)));
  const parts = new Set(composition.flatMap(importsOf).map(partOf));
  for (const part of ['db', 'infra', 'auth', 'http', 'modules', 'descriptors', 'geo-engine'])
    assert.ok(parts.has(part), part);
});

/** The contract of descriptors (modules/domain/): what a domain declares, the core it is built with. */
const DESCRIPTOR_CONTRACT = path.join(SRC, 'modules', 'domain');

test('no domain is wired outside its descriptor: app.ts and jobs.ts import only descriptors of src/modules', () => {
  const root = files.filter((f) => partOf(f) === 'root');
  const wired = root.flatMap((file) =>
    importsOf(file)
      .filter((target) => partOf(target) === 'modules' && path.dirname(target) !== DESCRIPTOR_CONTRACT)
      .map((target) => `${path.relative(SRC, file)} imports ${path.relative(SRC, target)}`),
  );
  assert.deepEqual(wired, []);
  // The rule sees what it judges: app.ts builds the domains from their descriptors.
  const descriptors = importsOf(path.join(SRC, 'app.ts')).filter((t) => partOf(t) === 'descriptors');
  assert.ok(descriptors.length >= 20, `app.ts imports ${descriptors.length} descriptors`);
});

test("each descriptor is its domain's: <domain>/<domain>.module.ts", () => {
  const misnamed = files
    .filter((f) => partOf(f) === 'descriptors')
    .filter((f) => path.basename(f) !== `${domainOf(f)}.module.ts`)
    .map((f) => path.relative(SRC, f));
  assert.deepEqual(misnamed, []);
});

/**
 * The web application (web/src), lowest first (docs/patterns.md, "The web application"):
 * i18n (the catalogs and `t`, which import nothing of the application) < base (store, router, the page's opening) < api (the client, its generated types, the session's credential) < ui
 * < model (RoomModel, its pure steps, the live channel, the actions per resource) < map
 * < room (the room's context, layout, map view, panels) < pages < the entries (early.ts, main.tsx).
 */
const WEB = path.resolve(SRC, '../web/src');

const WEB_MAY_IMPORT: Record<string, string[]> = {
  i18n: [],
  base: ['i18n'],
  api: ['i18n', 'base'],
  ui: ['i18n', 'base', 'api'],
  model: ['i18n', 'base', 'api', 'ui'],
  map: ['i18n', 'base', 'api', 'ui', 'model'],
  room: ['i18n', 'base', 'api', 'ui', 'model', 'map'],
  embed: ['i18n', 'base', 'api', 'ui', 'model', 'map', 'room'],
  pages: ['i18n', 'base', 'api', 'ui', 'model', 'map', 'room', 'embed'],
  root: ['i18n', 'base', 'api', 'ui', 'model', 'map', 'room', 'embed', 'pages'],
};

// The room's state outside the panels: its model, the live channel and who is present on it,
// and the pure steps of a past or future view (time-view.ts).
const MODEL_FILES = new Set([
  'room/room-model.ts',
  'room/room-state.ts',
  'room/live.ts',
  'room/presence.ts',
  'room/time-view.ts',
]);

function webPartOf(file: string): string {
  const relative = path.relative(WEB, file).split(path.sep).join('/');
  // The entries: early.ts sends the first reads and imports main.tsx, which renders the pages.
  if (relative === 'main.tsx' || relative === 'early.ts') return 'root';
  if (relative === 'session.ts') return 'api';
  if (!relative.includes('/')) return 'base';
  if (MODEL_FILES.has(relative) || relative.startsWith('room/actions/')) return 'model';
  return relative.split('/')[0]!;
}

function webFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return webFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** A web file's relative imports, resolved as Vite does (no extension, `.js` for `.ts`). */
function webImportsOf(file: string): string[] {
  return specifiersOf(file).map((s) => {
    const base = path.resolve(path.dirname(file), s.replace(/\.js$/, ''));
    const found = ['.ts', '.tsx', '.d.ts', '/index.ts'].map((ext) => base + ext).find((f) => existsSync(f));
    return found ?? base;
  });
}

const web = webFiles(WEB);

test('the web application imports nothing of the service but its generated types (web/src/api/schema.d.ts)', () => {
  const outside = web.flatMap((file) =>
    webImportsOf(file)
      .filter((target) => path.relative(WEB, target).startsWith('..'))
      .map((target) => `${path.relative(WEB, file)} imports ${path.relative(WEB, target)}`),
  );
  assert.deepEqual(outside, []);
});

test('no web file imports a layer above its own (the map never imports the room panels)', () => {
  const layering = { root: WEB, partOf: webPartOf, importsOf: webImportsOf, mayImport: WEB_MAY_IMPORT };
  assert.deepEqual(layerViolations(web, layering), []);
});

test('the web check sees the imports it is meant to judge', () => {
  // The room page reaches every layer below it; a panel reaches the model through an action.
  const parts = new Set(webImportsOf(path.join(WEB, 'pages/room-page.tsx')).map(webPartOf));
  for (const part of ['base', 'api', 'ui', 'model', 'room']) assert.ok(parts.has(part), part);
  const panel = webImportsOf(path.join(WEB, 'room/panels/marker-details.tsx')).map(webPartOf);
  assert.ok(panel.includes('model'), 'marker-details imports room/actions/markers');
});

test("the room's components ask the service only through the model and room/actions", () => {
  const request = /\bapi\.(GET|POST|PUT|PATCH|DELETE)\(|\bpostForm[<(]/;
  const asking = web.filter((file) => webPartOf(file) === 'room' && request.test(readFileSync(file, 'utf8')));
  assert.deepEqual(
    asking.map((file) => path.relative(WEB, file)),
    [],
  );
  // A guard against a pattern that matches nothing: the actions do make such requests.
  assert.ok(request.test(readFileSync(path.join(WEB, 'room/actions/members.ts'), 'utf8')));
  assert.ok(request.test(readFileSync(path.join(WEB, 'room/actions/layer-upload.ts'), 'utf8')));
});

test('the blob store is sealed: only the files module (and backups, key by key) reach it, and only blob-keys.ts spells its keys', () => {
  const store = path.join(SRC, 'infra', 'blob-store.ts');
  const filesModule = path.join(SRC, 'modules', 'files');
  const reaching = files
    .filter((file) => importsOf(file).includes(store))
    .filter((file) => !file.startsWith(filesModule + path.sep) && !['root', 'infra', 'backup'].includes(partOf(file)));
  assert.deepEqual(
    reaching.map((f) => path.relative(SRC, f)),
    [],
  );
  // A key is built as a template: `markers/${roomId}/...`; the documentation's `markers/<roomId>/` is not one.
  const keyTemplate = /[`'"](?:markers|icons|layers|exports|imports|uploads|chunks|rooms)\/\$\{/;
  const spelling = files.filter(
    (file) => file !== path.join(filesModule, 'blob-keys.ts') && keyTemplate.test(readFileSync(file, 'utf8')),
  );
  assert.deepEqual(
    spelling.map((f) => path.relative(SRC, f)),
    [],
  );
  assert.ok(keyTemplate.test(readFileSync(path.join(filesModule, 'blob-keys.ts'), 'utf8')), 'the pattern finds keys');
});

/**
 * What a reader cannot follow: a number of an issue tracker the repository does not hold
 * ("issue 12", "issues 3 and 4", "(#12)"), or a path outside the repository. The reason
 * belongs in the text itself, the contract in docs/http-interface.md and docs/contract-decisions.md.
 */
const ISSUE_NUMBER = /\bissues?\s+#?\d+|(?<!:\s*)(?:^|[\s([,;])#\d{1,5}\b(?![-\w])/i;
const OUTSIDE_PATH = /\.\.\/shared\b|\/work\/|\bshared\/spec\b|\bARCHITECTURE\.md\b/;

/** The text files of the repository a reader reads as its documentation and code. */
function readFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : walk(full);
      return /\.(ts|tsx|mjs|js|md|html|css|py|sh)$/.test(entry.name) ? [full] : [];
    });
  const generated = path.join(REPO, 'web/src/api/schema.d.ts');
  const files = ['src', 'web', 'docs'].flatMap((dir) => walk(path.join(REPO, dir)));
  return [...files, path.join(REPO, 'README.md')].filter((file) => file !== generated);
}

/** The lines of `text` that name an issue number or a path outside the repository. */
const unfollowableLines = (text: string) =>
  text.split('\n').filter((line) => OUTSIDE_PATH.test(line) || ISSUE_NUMBER.test(line));

test('no file points at an issue number or at a path outside the repository', () => {
  const found = readFiles().flatMap((file) =>
    unfollowableLines(readFileSync(file, 'utf8')).map((line) => `${path.relative(REPO, file)}: ${line.trim()}`),
  );
  assert.deepEqual(found, []);
});

test('the reference check sees what it is meant to judge, and no colour or fragment', () => {
  const flagged = (line: string) => unfollowableLines(line).length > 0;
  for (const line of [
    'Presence (issue 21): who has the room open',
    'What issues 10, 20 and 21 ask of the page',
    "Issue 20's times are measured by the bench",
    'fixed in #31, see there',
    'the rule (#7) says so',
    'The contract is `../shared/spec/http-interface.md`',
    'see /work/shared/ARCHITECTURE.md',
  ])
    assert.ok(flagged(line), line);
  for (const line of [
    "'circle-stroke-color': '#111'",
    "{ fillColor: '#000' }",
    'color: #222;',
    'border: 1px solid #9aa5b4;',
    'background: #000',
    'see [Run several instances](#run-several-instances)',
    'the markers feed, e.g. `ids[1]`',
    'docs/http-interface.md, "Limits"',
  ])
    assert.ok(!flagged(line), line);
});

/** The environment variables of the settings, as config.ts names them. */
function settingNames(): string[] {
  const text = readFileSync(path.join(SRC, 'config.ts'), 'utf8');
  const table = text.slice(text.indexOf('const ENV_NAMES'), text.indexOf('};', text.indexOf('const ENV_NAMES')));
  return [...table.matchAll(/^\s+\w+: '([A-Z0-9_]+)',$/gm)].map((m) => m[1]!);
}

test("every setting is listed in the README's configuration table", () => {
  const names = settingNames();
  assert.ok(names.includes('PORT') && names.includes('LIVE_HEARTBEAT_MS'), 'the check reads the settings');
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const rows = readme.split('\n').filter((line) => line.startsWith('| `'));
  assert.deepEqual(
    names.filter((name) => !rows.some((row) => row.split('|')[1]!.includes(`\`${name}\``))),
    [],
  );
});

/**
 * A page's opening has one owner, web/src/opening.ts (docs/patterns.md, "The web application"):
 * its steps and every timer of it (the waits for the content, the map, the preview's frame, the
 * fallbacks of what waits for the drawing), run through the clock it is given. Every other
 * web file that times something (a timer, or a `*_MS` constant) is listed here with what it
 * times, none of it the opening: a wait added to the room model, a page or the map view fails
 * this test until it is the opening's (or listed, for a reason that is not the opening).
 */
const OPENING = 'opening.ts';
const TIMED_ELSEWHERE: Record<string, string> = {
  'ui/after-frame.ts': 'the browser clock the opening is given (browserClock)',
  'ui/notice-toast.tsx': 'a success notice goes after a few seconds',
  'api/session-renewal.ts': 'the session is renewed before it lapses, tried again after a failure',
  'map/base-map.ts': "a tile server's first tile times out",
  'room/live.ts': 'the live channel connects again',
  'room/presence-map.ts': 'the pointer and the view are sent at most so often',
  'room/search-box.tsx': 'a search waits for the typing to pause',
  'room/announcer.tsx': "others' changes arriving together are gathered before they are told",
  'room/zoom-to-content.ts': "an uploaded layer's arrival through the live channel is waited for",
  'room/actions/room.ts': "an import's job is asked again",
  'room/actions/jobs.ts': "an upload's or a remote layer's job is asked again",
  'room/panels/export-import-section.tsx': "an export's download link is let go",
  'room/panels/marker-details.tsx': "a photo's link is let go",
  'room/panels/time-slider.tsx': 'the slider waits for the dragging to pause',
  'room/panels/attribute-table.tsx': "the table's filter waits for the typing to pause",
  'map/print-map.ts': 'a picture whose map never settles is taken as it is',
};
/** A timer (not a method of the opening: `opening.afterNextFrame`), or a constant of milliseconds. */
const TIMING =
  /(?<![.\w])(?:setTimeout|setInterval|requestAnimationFrame|requestIdleCallback|afterNextFrame)\(|AbortSignal\.timeout\(|\b[A-Z][A-Z0-9_]*_MS\s*=/;

test("only the opening's owner times a page's opening: every other timer of web/src is listed with what it times", () => {
  const timed = web
    .map((file) => path.relative(WEB, file).split(path.sep).join('/'))
    .filter((file) => TIMING.test(readFileSync(path.join(WEB, file), 'utf8')));
  assert.deepEqual(timed.filter((file) => file !== OPENING && !(file in TIMED_ELSEWHERE)).sort(), []);
  // Guards against a pattern that matches nothing and a list that outlived its files.
  const opening = readFileSync(path.join(WEB, OPENING), 'utf8');
  for (const wait of ['NO_MAP_MS', 'MAP_MS', 'CONTENT_WAIT_MS', 'DECK_WAIT_MS', 'PREVIEW_WAIT_MS'])
    assert.match(opening, new RegExp(`\\bconst ${wait} =`), `${wait} is the opening's`);
  assert.ok(TIMING.test('  private fallback = setTimeout(() => this.drawn(), NO_MAP_MS);'));
  assert.ok(!TIMING.test('opening.afterNextFrame(() => show())'));
  assert.deepEqual(
    Object.keys(TIMED_ELSEWHERE).filter((file) => !timed.includes(file)),
    [],
  );
});

test('every test file stays under 600 lines (docs/patterns.md, "Tests")', () => {
  const MAX_LINES = 600;
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? walk(full) : entry.name.endsWith('.ts') ? [full] : [];
    });
  const files = walk(path.join(REPO, 'test'));
  assert.ok(files.length > 100, 'the check reads the tests');
  const long = files
    .map((file) => ({ file: path.relative(REPO, file), lines: readFileSync(file, 'utf8').split('\n').length }))
    .filter(({ lines }) => lines > MAX_LINES);
  assert.deepEqual(long, [], 'split a long test file by sub-resource');
});
