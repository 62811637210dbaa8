import { base, get, NO_SUCH, type ProbeRoom, type RouteEntry } from './access-matrix-routes.js';

/**
 * The expectation table's entries for OGC API – Features (merged into access-matrix-table.ts):
 * every route reads the room, so it follows the room's read rule (a room token with read, a
 * member's session, anyone on a public room; a public deck does not open it). Probes read the
 * fixture layer of the probed room. A room token may also come as the password of HTTP Basic.
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
};
