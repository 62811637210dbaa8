import type { FastifyInstance } from 'fastify';
import type { FormPart } from '../helpers.js';
import type { MatrixCaller, RoomKind, Rule } from './access-matrix-rules.js';
import type { Fixtures } from './access-matrix-world.js';

/**
 * The routes the access matrix walks: read from the service (its OpenAPI document, and
 * Fastify's route tree for the routes the document hides), and the shape of the expectation
 * table's entries (access-matrix-table.ts), with the small probe builders its entries share.
 */

/** The HTTP methods an OpenAPI path item may hold (beside `parameters`, `summary`, ...). */
const OPERATIONS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** `METHOD /path` of every operation in the service's own OpenAPI document, as it names them. */
export function documentedRoutes(app: FastifyInstance): string[] {
  const document = app.swagger() as { paths?: Record<string, Record<string, unknown>> };
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => OPERATIONS.has(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/**
 * `METHOD /path` of every route Fastify has registered (its automatic HEAD routes left out),
 * with `:param` written `{param}` as the document writes it. Read from Fastify's printed route
 * tree, so that routes the document hides (WebSockets, the web application) are seen too. The
 * tree is read node by node (its default form), each line the next piece of the path: the
 * compact form leaves out the pieces before a wildcard (`/assets/*` prints as `/*`).
 */
export function registeredRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes().split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes.length = depth;
    prefixes.push(path);
    for (const method of match[3]?.split(', ') ?? []) {
      // A parameter node shared by routes that name it differently prints as `:roomName|:layerId`.
      if (method !== 'HEAD') routes.push(`${method} ${path.replace(/:(\w+)(?:\|:\w+)*/g, '{$1}')}`);
    }
  }
  return routes;
}

/** A request of the matrix: a JSON body, or a multipart form. */
export interface Probe {
  method: string;
  url: string;
  body?: unknown;
  form?: Record<string, FormPart>;
}

/** The room a probe is sent to, with its fixtures. */
export interface ProbeRoom {
  roomId: string;
  fixtures: Fixtures;
}

/** What a write-only request may build on: calls as the owner (before) or as the token itself. */
export interface WriteOnlyContext {
  base: string;
  asOwner(method: string, url: string, body?: unknown): Promise<any>;
  asToken(method: string, url: string, body?: unknown): Promise<any>;
}

/**
 * The answer a write-only caller gets: each top-level key, with `'value'` for a value made of
 * what was sent (an id, a job id, upload keys), or the keys a stored object keeps (`each` for
 * a list of stored objects).
 */
export type AnswerShape = Record<string, 'value' | readonly string[] | { each: readonly string[] }>;

/** A valid request for a caller that may write but not read, and what it must get back. */
export interface WriteOnlyProbe {
  request(ctx: WriteOnlyContext): Promise<Probe>;
  status: number;
  answer: AnswerShape;
}

/** Who got an allowed answer: the caller, the room's kind, and whether it may read the room. */
export interface Reader {
  caller: MatrixCaller;
  kind: RoomKind;
  mayRead: boolean;
}

/** One route of the expectation table. */
export interface RouteEntry {
  rule: Rule;
  probe?: (room: ProbeRoom) => Probe;
  /** The status an allowed caller's probe answers. */
  ok?: number;
  /** Checks what an allowed caller learns, where that depends on who it is (asserts). */
  answer?: (body: any, reader: Reader) => void;
  /** The probe changes the room when allowed: allowed callers get a fresh room of the same kind. */
  destructive?: true;
  writeOnly?: WriteOnlyProbe;
  /** Why a mutation that room tokens may call needs no write-only probe. */
  noWriteOnlyProbe?: string;
  /** A route the OpenAPI document does not show, and why it is still in the table. */
  hiddenFromDocument?: string;
  /** Where a route the matrix does not call is tested. */
  checkedIn?: string;
}

/** The probed room's address. */
export const base = (r: ProbeRoom) => `/api/rooms/${r.roomId}`;
/** A read. */
export const get = (url: string): Probe => ({ method: 'GET', url });
/** A request whose body the route refuses with 400 (`{}` unless given). */
export const invalid = (method: string, url: string, body: unknown = {}): Probe => ({ method, url, body });
/** A JSON body where a multipart one is needed: 415 before any file is read. */
export const notMultipart = (url: string): Probe => ({ method: 'POST', url, body: {} });
/** Ids of the right shape that name nothing: the route answers 404 from its service. */
export const NO_SUCH = {
  marker: 'marker-absent0000000000',
  drawing: 'drawing-absent000000000',
  slide: 'slide-absent00000000000',
  comment: 'comment-absent000000000',
  reply: 'reply-absent00000000000',
};

/**
 * Routes the matrix does not walk, because they are documentation, not the service's
 * interface: the OpenAPI document itself and the browser for it.
 */
export const DOCUMENTATION_ROUTES = [/^\/api\/openapi\.json$/, /^\/api\/docs(\/|$)/];

/**
 * Routes the matrix does not walk, because they are the web application's pages and files, not
 * the interface (src/http/web-app.ts): each page answers the same index.html to anyone, and the
 * application then calls the interface, where the rules apply; `/assets/*` (registered by
 * @fastify/static, only when the application is built) serves its scripts and styles;
 * `/basemap/{file}` the offline base map, the same public file to anyone; `/embed.js` and
 * `/embed.d.ts` the embed script and its types, for other sites' pages.
 * test/web/app.test.ts, test/web/embed.test.ts and test/http/offline-basemap.test.ts check them.
 */
export const WEB_APP_ROUTES = [
  /^\/$/,
  /^\/r\/\{roomId\}$/,
  /^\/p\/\{roomId\}$/,
  /^\/e\/\{roomId\}$/,
  /^\/e\/\{roomId\}\/deck$/,
  /^\/verify-email$/,
  /^\/signed-in$/,
  /^\/admin$/,
  /^\/forgot-password$/,
  /^\/reset-password$/,
  /^\/account$/,
  /^\/assets\/\*$/,
  /^\/basemap\/\{file\}$/,
  /^\/embed\.(js|d\.ts)$/,
];
