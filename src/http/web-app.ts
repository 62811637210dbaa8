import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Config, publicUrlOf } from '../config.js';
import { notFound } from '../errors.js';
import { isRoomId } from '../ids.js';

/** The pages of the web application; each answers its index.html and the app routes itself. */
export const WEB_PAGES = [
  '/',
  '/r/:roomId',
  '/p/:roomId',
  '/e/:roomId',
  '/e/:roomId/deck',
  '/verify-email',
  '/signed-in',
  '/admin',
  '/forgot-password',
  '/reset-password',
  '/account',
] as const;

/** dist/web of the repository, whether this file runs built (dist/src/http) or from source (src/http). */
function defaultWebDir() {
  const here = fileURLToPath(import.meta.url);
  const dist = here.lastIndexOf(`${path.sep}dist${path.sep}`);
  const root = dist >= 0 ? here.slice(0, dist) : path.resolve(path.dirname(here), '../..');
  return path.join(root, 'dist', 'web');
}

/** A base layer the map offers: raster tiles, the offline vector map this service ships (`vector`), or none (a plain background). */
export interface BaseLayer {
  id: string;
  name: string;
  tiles: string | null;
  attribution: string;
  /** The service's own TopoJSON (land, countries) the browser draws itself; needs no internet. */
  vector?: string;
}

/** What the page needs to know before its first request: the base layers this install offers, whether it finds places. */
export interface WebConfig {
  baseLayers: BaseLayer[];
  /** A place geocoder is configured (GEOCODER_URL): the room's search offers places (`GET /api/geocode`). */
  geocoder: boolean;
}

const OSM = '© OpenStreetMap contributors';
const CARTO = `${OSM} © CARTO`;
const SWISSTOPO = '© swisstopo';
/** The ids the rooms' `defaultBaseLayer` may name, with public tile services for each. */
const BUILTIN_BASE_LAYERS: BaseLayer[] = [
  { id: 'osm', name: 'OpenStreetMap', tiles: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', attribution: OSM },
  {
    id: 'carto',
    name: 'CARTO light',
    tiles: 'https://basemaps.cartocdn.com/light_all/{z}/{x}/{y}.png',
    attribution: CARTO,
  },
  {
    id: 'voyager',
    name: 'CARTO Voyager',
    tiles: 'https://basemaps.cartocdn.com/rastertiles/voyager/{z}/{x}/{y}.png',
    attribution: CARTO,
  },
  {
    id: 'satellite',
    name: 'Satellite (Esri)',
    tiles: 'https://server.arcgisonline.com/ArcGIS/rest/services/World_Imagery/MapServer/tile/{z}/{y}/{x}',
    attribution: '© Esri',
  },
  {
    id: 'swisstopo',
    name: 'swisstopo map',
    tiles: 'https://wmts.geo.admin.ch/1.0.0/ch.swisstopo.pixelkarte-farbe/default/current/3857/{z}/{x}/{y}.jpeg',
    attribution: SWISSTOPO,
  },
  {
    id: 'swissimage',
    name: 'SWISSIMAGE',
    tiles: 'https://wmts.geo.admin.ch/1.0.0/ch.swisstopo.swissimage/default/current/3857/{z}/{x}/{y}.jpeg',
    attribution: SWISSTOPO,
  },
];
const BLANK: BaseLayer = { id: 'blank', name: 'Blank', tiles: null, attribution: '' };
/** Natural Earth's land and borders (world-atlas, 1:50m), served by this service: the map needs no internet. */
export const OFFLINE_BASEMAP_FILE = 'countries-50m.json';
const OFFLINE: BaseLayer = {
  id: 'offline',
  name: 'Offline',
  tiles: null,
  attribution: 'Natural Earth',
  vector: `/basemap/${OFFLINE_BASEMAP_FILE}`,
};

/** The base layers offered: an own tile server first when configured, the public ones unless `BASEMAPS=none`, then always Offline and Blank. */
export function webConfigOf(config: Config): WebConfig {
  const own: BaseLayer[] = config.basemapTiles
    ? [{ id: 'own', name: 'Own tiles', tiles: config.basemapTiles, attribution: config.basemapAttribution }]
    : [];
  const builtin = config.basemaps === 'none' ? [] : BUILTIN_BASE_LAYERS;
  return { baseLayers: [...own, ...builtin, OFFLINE, BLANK], geocoder: config.geocoderUrl !== undefined };
}

/**
 * The video players a marker's `embeddedMediaUrl` is shown in (web/src/ui/media-embed.ts turns
 * YouTube and Vimeo addresses into these); any other address is shown as a link, never framed.
 */
export const EMBED_ORIGINS = ['https://www.youtube-nocookie.com', 'https://player.vimeo.com'];

/**
 * The Content-Security-Policy of the pages: scripts, styles and connections only from this
 * service (MapLibre's workers are blob: URLs), tiles also from the base layers' servers, frames
 * only from the video players of EMBED_ORIGINS. Images and connections also from any https
 * address: a room's own base maps (PATCH /basemaps) are any tile server its owner names, added
 * while pages are open; on a page served over http (a machine's own network), from any http
 * address too (over https a browser would not load http tiles anyway).
 */
export function contentSecurityPolicy(config: Config, frameAncestors = "'none'", pageScheme = 'https'): string {
  const origins = webConfigOf(config).baseLayers.flatMap((layer) =>
    layer.tiles ? [new URL(layer.tiles.replace(/[{}]/g, '')).origin] : [],
  );
  const roomTiles = pageScheme === 'http' ? ['https:', 'http:'] : ['https:'];
  const tiles = [...new Set([...origins, ...roomTiles])].map((origin) => ` ${origin}`).join('');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: blob:${tiles}`,
    `connect-src 'self'${tiles}`,
    "worker-src 'self' blob:",
    // Its own embed pages (the Share dialog's preview), and the video players of markers.
    `frame-src 'self' ${EMBED_ORIGINS.join(' ')}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

/** The embed script and its types, served at the root for other sites' pages. */
const EMBED_FILES = [
  ['embed.js', 'text/javascript'],
  ['embed.d.ts', 'application/typescript'],
] as const;

/** This service's origin for absolute links in pages and answers: PUBLIC_URL, else the request's own. */
export function baseUrlOf(config: Config, request: FastifyRequest): string {
  return config.publicUrl ? publicUrlOf(config) : `${request.protocol}://${request.host}`;
}

/**
 * What the room pages ask per request (the embedding domain answers): who may frame the `/e/`
 * pages (a CSP `frame-ancestors` source list: `*`, origins or `'none'`, also for an unknown room)
 * and the link-preview tags of a public room's `/r/` or a published deck's `/p/` ('' for
 * anything else).
 */
export interface RoomPages {
  frameAncestors(roomId: string): Promise<string>;
  preview(page: 'room' | 'deck', roomId: string, base: string): Promise<string>;
}

/**
 * Serves the built web application (Vite's output in `dist/web`): hashed assets with a long
 * cache life, and the page for each of the application's paths, with the install's base layers
 * written into it as data (not script) and a strict Content-Security-Policy.
 */
export async function registerWebApp(app: FastifyInstance, config: Config, rooms?: RoomPages) {
  const webDir = config.webDir ?? defaultWebDir();
  const indexFile = path.join(webDir, 'index.html');
  const built = existsSync(indexFile);
  const csps = { http: contentSecurityPolicy(config, "'none'", 'http'), https: contentSecurityPolicy(config) };
  const page = built ? pageWithConfig(readFileSync(indexFile, 'utf8'), webConfigOf(config)) : NOT_BUILT;

  if (built) {
    await app.register(fastifyStatic, {
      root: path.join(webDir, 'assets'),
      prefix: '/assets/',
      immutable: true,
      maxAge: '365d',
      index: false,
      schemaHide: true,
      setHeaders: (res) => res.header('X-Content-Type-Options', 'nosniff'),
    });
  }
  const answerPage = async (request: FastifyRequest, reply: FastifyReply) => {
    // A room's page for an id no room can have is not a page: 404 with the JSON error body.
    const { roomId } = request.params as { roomId?: string };
    if (roomId !== undefined && !isRoomId(roomId)) throw notFound('Room');
    const { html, policy } = await pageFor(request, roomId);
    // An embed page's address may hold its key: not even this service hears it as a Referer.
    const referrerPolicy = request.url.startsWith('/e/') ? 'strict-origin' : 'strict-origin-when-cross-origin';
    return (
      reply
        .header('Content-Type', 'text/html; charset=utf-8')
        .header('Content-Security-Policy', policy)
        .header('X-Content-Type-Options', 'nosniff')
        // Tile servers hear this origin only (OpenStreetMap's tile policy asks for a Referer), never a page's path or query.
        .header('Referrer-Policy', referrerPolicy)
        .header('Cache-Control', 'no-cache')
        .send(html)
    );
  };
  /** `/e/` pages may be framed by the room's origins; `/r/` and `/p/` of public content carry link-preview tags. */
  const pageFor = async (request: FastifyRequest, roomId: string | undefined) => {
    const scheme = request.protocol === 'http' ? 'http' : 'https';
    const csp = csps[scheme];
    const kind = roomId === undefined || !rooms ? undefined : request.routeOptions.url?.split('/')[1];
    if (kind === 'e')
      return { html: page, policy: contentSecurityPolicy(config, await rooms!.frameAncestors(roomId!), scheme) };
    if ((kind === 'r' || kind === 'p') && built) {
      const tags = await rooms!.preview(kind === 'r' ? 'room' : 'deck', roomId!, baseUrlOf(config, request));
      if (tags) return { html: page.replace('</head>', () => `${tags}</head>`), policy: csp };
    }
    return { html: page, policy: csp };
  };
  for (const url of WEB_PAGES) app.get(url, { schema: { hide: true } }, answerPage);
  // The embed script (web/public/embed.js) and its types, for other sites' pages: no build step
  // there, an address that stays the same, so cached for an hour only.
  for (const [file, type] of EMBED_FILES) {
    const text = built && existsSync(path.join(webDir, file)) ? readFileSync(path.join(webDir, file), 'utf8') : null;
    app.get(`/${file}`, { schema: { hide: true } }, async (_request, reply) => {
      if (text === null) throw notFound('The embed script (the web application is not built)');
      return reply
        .header('Content-Type', `${type}; charset=utf-8`)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'public, max-age=3600')
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .send(text);
    });
  }
}

function pageWithConfig(html: string, webConfig: WebConfig): string {
  // JSON in a data block; `<` escaped so no text in it can close the element.
  const json = JSON.stringify(webConfig).replace(/</g, '\\u003c');
  // A function, so that `$` sequences in the JSON are not read as replacement patterns.
  return html.replace(
    '<!--maproom-config-->',
    () => `<script type="application/json" id="maproom-config">${json}</script>`,
  );
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Maproom</title>
<p>The web application is not built. Run <code>npm run build</code> (or <code>npm start</code>, which builds it).</p>`;
