import { base, get, invalid, type RouteEntry } from './access-matrix-routes.js';

/**
 * The expectation table's entries for raster layers (merged into access-matrix-table.ts).
 * Probes address a raster id that names nothing: an allowed caller hears the service's 404
 * (or the schema's 400 for an invalid display), a refused one the access rule's answer. Tiles
 * and point values are also open to visitors of a public deck for the rasters its slides show
 * (docs/contract-decisions.md: what a public deck shows is readable by anyone).
 */

const NO_SUCH_RASTER = 'layer-absent000000000000';
const raster = (r: Parameters<typeof base>[0]) => `${base(r)}/raster-layers/${NO_SUCH_RASTER}`;

export const RASTER_ROUTES: Record<string, RouteEntry> = {
  'GET /api/colormaps': { rule: { public: true }, probe: () => get('/api/colormaps'), ok: 200 },
  'GET /api/rooms/{roomId}/raster-layers': {
    rule: { need: 'read', embed: true },
    probe: (r) => get(`${base(r)}/raster-layers`),
    ok: 200,
  },
  'PATCH /api/rooms/{roomId}/raster-layers/{layerId}/display': {
    rule: { need: 'write' },
    probe: (r) => invalid('PATCH', `${raster(r)}/display`, { opacity: 2 }),
    ok: 400,
    noWriteOnlyProbe:
      'a raster layer exists only after a multipart upload, which the write-only context (JSON calls) cannot make; ' +
      'rasters/display.test.ts checks that a write-only token gets back {success, rasterLayer: {id}}',
  },
  'GET /api/rooms/{roomId}/raster-layers/{layerId}/tiles/{z}/{x}/{y}.png': {
    rule: { need: 'read', shownByPublicDeck: true, embed: true, basic: true },
    probe: (r) => get(`${raster(r)}/tiles/0/0/0.png`),
    ok: 404,
  },
  'GET /api/rooms/{roomId}/raster-layers/{layerId}/point': {
    rule: { need: 'read', shownByPublicDeck: true, embed: true },
    probe: (r) => get(`${raster(r)}/point?lon=7.4&lat=46.9`),
    ok: 404,
  },
};
