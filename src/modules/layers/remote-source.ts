import { createReadStream, createWriteStream } from 'node:fs';
import { open, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { collectionHead, collectionOutside, withoutFeatures } from '../../geo-engine/geojson-stream.js';
import { isLonLatCollection } from '../../geo-engine/vector-open.js';
import { downloadOutbound, OutboundTooLarge } from '../../infra/outbound.js';

/** How a remote layer's source is fetched. */
export interface SourceFetch {
  /** A folder of its own for this fetch's files (the caller removes it). */
  dir: string;
  maxBytes: number;
  timeoutMs: number;
  allowPrivate: boolean;
  signal?: AbortSignal;
}

/** A source read to a local file, named so that its extension tells CSV apart. */
export interface FetchedSource {
  path: string;
  fileName: string;
  /** A GeoJSON FeatureCollection's members but its features (read here already), when the file is one. */
  collectionMembers?: Record<string, unknown>;
  /**
   * Set when `collectionMembers` are those before the features only (a large file is not read
   * to its end here: its reader does that, and fails with MembersAfterFeatures if others follow):
   * the source as the whole file decides it.
   */
  whole?: () => Promise<FetchedSource>;
}

/** Pages of an OGC API Features collection followed at most (each a request of its own). */
const MAX_PAGES = 1000;
/** The largest page of a collection read (each is parsed whole). */
export const PAGE_MAX_BYTES = 64 * 1024 * 1024;

const EXTENSIONS: [RegExp, string][] = [
  [/csv/i, '.csv'],
  [/kml/i, '.kml'],
  [/gpx/i, '.gpx'],
  [/flatgeobuf/i, '.fgb'],
  [/json/i, '.geojson'],
];

/**
 * Reads the address of a remote layer to a file the ingest takes. A GeoJSON, CSV, KML, GPX or
 * FlatGeobuf file is kept as it came. An OGC API Features collection (its page, or its items)
 * is followed through its `items` and `next` links into one FeatureCollection. A WFS GetFeature
 * address without an `outputFormat` asks for GeoJSON. Every request, redirects included,
 * follows the outbound rule (infra/outbound.ts).
 */
export async function fetchSource(address: string, given: SourceFetch): Promise<FetchedSource> {
  // One deadline for the whole read, every page and redirect included.
  const deadline = AbortSignal.timeout(given.timeoutMs);
  const options = { ...given, signal: given.signal ? AbortSignal.any([given.signal, deadline]) : deadline };
  const url = withWfsGeoJson(new URL(address));
  const first = path.join(options.dir, 'source');
  const answer = await download(url.href, first, options);
  const fileName = nameOf(new URL(answer.url), answer.contentType);
  if (!(await startsWithBrace(first))) return { path: first, fileName };
  const whole = () => sourceOf(first, answer.url, fileName, options);
  const head = await collectionHeadOf(first);
  if (!head) return whole();
  return { path: first, fileName: geoJsonName(fileName), collectionMembers: head, whole };
}

/** The source the JSON file `first` (read from `url`) is, decided on all of it. */
async function sourceOf(first: string, url: string, fileName: string, options: SourceFetch): Promise<FetchedSource> {
  const document = await documentOf(first);
  const items = document && linkOf(document, 'items');
  if (document?.type !== 'FeatureCollection' && items) {
    const itemsFile = path.join(options.dir, 'items');
    const itemsAnswer = await download(new URL(items, url).href, itemsFile, pageOptions(options));
    return followPages(itemsFile, itemsAnswer.url, options);
  }
  if (document?.type === 'FeatureCollection' && linkOf(document, 'next')) return followPages(first, url, options);
  return {
    path: first,
    fileName: geoJsonName(fileName),
    ...(document?.type === 'FeatureCollection' && { collectionMembers: withoutFeatures(document) }),
  };
}

const geoJsonName = (fileName: string) => (fileName.endsWith('.geojson') ? fileName : 'source.geojson');

/**
 * The members before the features of a large FeatureCollection in longitude/latitude without
 * links (not an OGC API page), read no further: its features are read on their strength without
 * GDAL, and their reader checks the rest. Null when the file is small (parsed whole at once), or
 * its head is not one such (GDAL reads it, or it has pages: all of it decides).
 */
async function collectionHeadOf(file: string): Promise<Record<string, unknown> | null> {
  try {
    if ((await stat(file)).size <= SMALL_DOCUMENT_BYTES) return null;
    const head = await collectionHead(createReadStream(file, { highWaterMark: 64 * 1024 }));
    const value = head.value as Record<string, unknown> | null;
    if (head.whole || !value || 'links' in value) return null;
    const members = withoutFeatures(value);
    return isLonLatCollection(members) ? members : null;
  } catch {
    return null;
  }
}

/** A WFS GetFeature address asks for GeoJSON unless it names an output format. */
function withWfsGeoJson(url: URL): URL {
  const params = new Map([...url.searchParams.keys()].map((key) => [key.toLowerCase(), key]));
  const value = (name: string) => url.searchParams.get(params.get(name) ?? name)?.toLowerCase();
  if (value('service') === 'wfs' && value('request') === 'getfeature' && !params.has('outputformat'))
    url.searchParams.set('outputFormat', 'application/json');
  return url;
}

async function download(url: string, file: string, options: SourceFetch) {
  return downloadOutbound({ url, path: file, ...options });
}

/** A page is parsed whole: it may be no larger than PAGE_MAX_BYTES. */
const pageOptions = (options: SourceFetch): SourceFetch => ({
  ...options,
  maxBytes: Math.min(options.maxBytes, PAGE_MAX_BYTES),
});

/** The file name the ingest reads a source under: its address's, else one its content type suggests. */
function nameOf(url: URL, contentType: string): string {
  const base = path.basename(decoded(url.pathname));
  if (/\.[a-z0-9]{2,8}$/i.test(base)) return base.slice(-100);
  const extension = EXTENSIONS.find(([pattern]) => pattern.test(contentType))?.[1] ?? '';
  return `source${extension}`;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

async function startsWithBrace(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64), 0, 64, 0);
    return buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart()
      .startsWith('{');
  } finally {
    await handle.close();
  }
}

type JsonDocument = { type?: unknown; links?: unknown; features?: unknown; [member: string]: unknown };

/** Documents up to this size are parsed whole; a larger one is a FeatureCollection whose features are not parsed here. */
const SMALL_DOCUMENT_BYTES = 1024 * 1024;

/**
 * The JSON document's members (an OGC API page, or a FeatureCollection's members but its
 * features), or null when it is neither (a file GDAL reads). A large file is streamed, its
 * features only cut apart: a GeoJSON of hundreds of megabytes is never held here.
 */
async function documentOf(file: string): Promise<JsonDocument | null> {
  try {
    const parsed =
      (await stat(file)).size <= SMALL_DOCUMENT_BYTES
        ? (JSON.parse(await readFile(file, 'utf8')) as unknown)
        : // Small chunks: their text is young garbage (see readGeoJsonTable).
          await collectionOutside(createReadStream(file, { highWaterMark: 64 * 1024 }));
    return parsed && typeof parsed === 'object' ? (parsed as JsonDocument) : null;
  } catch {
    return null;
  }
}

/** The href of the document's first link of relation `rel` (GeoJSON's or JSON's type). */
function linkOf(document: JsonDocument, rel: string): string | undefined {
  if (!Array.isArray(document.links)) return undefined;
  const links = document.links.filter(
    (link): link is { href: string; rel: string; type?: string } =>
      !!link && typeof link === 'object' && typeof link.href === 'string' && link.rel === rel,
  );
  const json = links.find((link) => !link.type || /json/i.test(link.type));
  return (json ?? links[0])?.href;
}

/** The pages of an OGC API Features collection from `firstFile`, as one FeatureCollection. */
async function followPages(firstFile: string, firstUrl: string, options: SourceFetch): Promise<FetchedSource> {
  const merged = path.join(options.dir, 'collection.geojson');
  const out = createWriteStream(merged);
  // A write that failed (a full disk) fails the read at the next write, never the process.
  let failed: Error | undefined;
  out.on('error', (error) => {
    failed = error;
  });
  const write = async (text: string) => {
    if (failed) throw failed;
    if (!out.write(text)) await Promise.race([once(out, 'drain'), once(out, 'error')]);
  };
  let [file, url, written, count] = [firstFile, firstUrl, 0, 0];
  try {
    await write('{"type":"FeatureCollection","features":[');
    for (let page = 0; ; page++) {
      if ((await stat(file)).size > PAGE_MAX_BYTES)
        throw new OutboundTooLarge(`a page of the collection is larger than ${PAGE_MAX_BYTES} bytes`);
      const document = JSON.parse(await readFile(file, 'utf8')) as JsonDocument;
      // Read: the page's bytes are in the collection now.
      await rm(file, { force: true });
      if (!Array.isArray(document.features)) throw new Error(`page ${page + 1} of the collection holds no features`);
      for (const feature of document.features) {
        const text = JSON.stringify(feature);
        written += text.length + 1;
        if (written > options.maxBytes)
          throw new OutboundTooLarge(`the source is larger than ${options.maxBytes} bytes`);
        await write(`${count++ === 0 ? '' : ','}${text}`);
      }
      const next = linkOf(document, 'next');
      if (!next || document.features.length === 0) break;
      if (page + 1 >= MAX_PAGES) throw new Error(`the collection has more than ${MAX_PAGES} pages`);
      file = path.join(options.dir, `page-${page + 1}`);
      url = (await download(new URL(next, url).href, file, pageOptions(options))).url;
    }
    await write(']}');
  } finally {
    out.end();
    if (!out.closed) await once(out, 'close');
  }
  if (failed) throw failed;
  return { path: merged, fileName: 'collection.geojson', collectionMembers: { type: 'FeatureCollection' } };
}
