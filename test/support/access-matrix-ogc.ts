import {
  base,
  get,
  invalid,
  NO_SUCH,
  type ProbeRoom,
  type RouteEntry,
  type WriteOnlyContext,
} from './access-matrix-routes.js';
import { STORED_SECRET } from './access-matrix-world.js';

/**
 * The expectation table's entries for OGC API – Features (merged into access-matrix-table.ts):
 * every route reads the room, so it follows the room's read rule (a room token with read, a
 * member's session, anyone on a public room; a public deck does not open it). Probes read the
 * fixture layer of the probed room. A room token may also come as the password of HTTP Basic.
 * The writes of Part 4 need write: probes address a feature the fixture layer does not have.
 */

const ogc = (r: ProbeRoom) => `${base(r)}/ogc`;
const read = (url: (r: ProbeRoom) => string, ok = 200): RouteEntry => ({
  rule: { need: 'read', basic: true },
  probe: (r) => get(url(r)),
  ok,
});

export const OGC_ROUTES: Record<string, RouteEntry> = {
  'GET /api/rooms/{roomId}/ogc': read(ogc),
  'GET /api/rooms/{roomId}/ogc/conformance': read((r) => `${ogc(r)}/conformance`),
  'GET /api/rooms/{roomId}/ogc/api': read((r) => `${ogc(r)}/api`),
  'GET /api/rooms/{roomId}/ogc/collections': read((r) => `${ogc(r)}/collections`),
  'GET /api/rooms/{roomId}/ogc/collections/{collectionId}': read((r) => `${ogc(r)}/collections/${r.fixtures.layerId}`),
  'GET /api/rooms/{roomId}/ogc/collections/{collectionId}/schema': read(
    (r) => `${ogc(r)}/collections/${r.fixtures.layerId}/schema`,
  ),
  'GET /api/rooms/{roomId}/ogc/collections/{collectionId}/items': read(
    (r) => `${ogc(r)}/collections/${r.fixtures.layerId}/items?limit=1`,
  ),
  'GET /api/rooms/{roomId}/ogc/collections/{collectionId}/items/{featureId}': read(
    (r) => `${ogc(r)}/collections/markers/items/${NO_SUCH.marker}`,
    404,
  ),
  'POST /api/rooms/{roomId}/ogc/collections/{collectionId}/items': {
    rule: { need: 'write', basic: true },
    probe: (r) => invalid('POST', `${ogc(r)}/collections/${r.fixtures.layerId}/items`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({
        method: 'POST',
        url: `${ctx.base}/ogc/collections/${(await notedLayer(ctx)).layer.id}/items`,
        body: { type: 'Feature', geometry: { type: 'Point', coordinates: [7.1, 46.1] }, properties: { name: 'sent' } },
      }),
      status: 201,
      answer: { id: 'value', type: 'value', geometry: 'value', properties: ['name'] },
    },
  },
  'PUT /api/rooms/{roomId}/ogc/collections/{collectionId}/items/{featureId}': {
    rule: { need: 'write', basic: true },
    probe: (r) => invalid('PUT', `${ogc(r)}/collections/${r.fixtures.layerId}/items/${NO_SUCH_FEATURE}`, POINT),
    ok: 404,
    writeOnly: {
      request: async (ctx) => ({
        method: 'PUT',
        url: await notedItem(ctx),
        body: { ...POINT, properties: { name: 'put' } },
      }),
      status: 200,
      answer: { id: 'value', type: 'value', geometry: 'value', properties: ['name'] },
    },
  },
  'PATCH /api/rooms/{roomId}/ogc/collections/{collectionId}/items/{featureId}': {
    rule: { need: 'write', basic: true },
    probe: (r) =>
      invalid('PATCH', `${ogc(r)}/collections/${r.fixtures.layerId}/items/${NO_SUCH_FEATURE}`, { properties: {} }),
    ok: 404,
    writeOnly: {
      request: async (ctx) => ({
        method: 'PATCH',
        url: await notedItem(ctx),
        body: { properties: { name: 'patched' } },
      }),
      status: 200,
      answer: { id: 'value', properties: ['name'] },
    },
  },
  'DELETE /api/rooms/{roomId}/ogc/collections/{collectionId}/items/{featureId}': {
    rule: { need: 'write', basic: true },
    probe: (r) => ({ method: 'DELETE', url: `${ogc(r)}/collections/${r.fixtures.layerId}/items/${NO_SUCH_FEATURE}` }),
    ok: 404,
    writeOnly: {
      request: async (ctx) => ({ method: 'DELETE', url: await notedItem(ctx) }),
      status: 204,
      answer: {},
    },
  },
};

const NO_SUCH_FEATURE = 999_999_999;
const POINT = { type: 'Feature', geometry: { type: 'Point', coordinates: [7, 46] } };
/** A layer of one point whose `note` the write-only caller does not send (it must not come back). */
const notedLayer = (ctx: WriteOnlyContext) =>
  ctx.asOwner('POST', `${ctx.base}/layers`, {
    name: 'Noted',
    geojson: { type: 'FeatureCollection', features: [{ ...POINT, properties: { name: 'a', note: STORED_SECRET } }] },
  });
/** The item of that layer's point. */
async function notedItem(ctx: WriteOnlyContext): Promise<string> {
  const { layer } = await notedLayer(ctx);
  const { features } = await ctx.asOwner('GET', `/api/layers/${layer.id}/features`);
  return `${ctx.base}/ogc/collections/${layer.id}/items/${features[0].id}`;
}
