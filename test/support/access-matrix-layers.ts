import { base, get, invalid, type RouteEntry, type WriteOnlyContext } from './access-matrix-routes.js';
import { STORED_SECRET } from './access-matrix-world.js';
import { TWO_SQUARES } from './layers.js';

/**
 * The expectation table's entries for vector layers and uploads (merged into
 * access-matrix-table.ts). Uploads name their room in the body (`roomName`): probes send a
 * valid body without a file or chunk, which an allowed caller hears as the service's 400 or
 * 404 and a refused one as the access rule's answer. Routes addressed by a layer id alone
 * address the fixture layer of the probed room, which the fixture slide shows: on a public
 * deck anyone may read its data.
 */

const NO_SUCH_LAYER = 'layer-absent000000000000';
const layer = (r: Parameters<typeof base>[0]) => `/api/layers/${r.fixtures.layerId}`;
const newLayer = (ctx: WriteOnlyContext) =>
  ctx.asOwner('POST', `${ctx.base}/layers`, { name: 'Stored', description: STORED_SECRET, geojson: TWO_SQUARES });
/** A layer whose features hold a property the write-only caller does not send (it must not come back). */
const layerWithNote = (ctx: WriteOnlyContext) =>
  ctx.asOwner('POST', `${ctx.base}/layers`, {
    name: 'Noted',
    geojson: {
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [7, 46] },
          properties: { name: 'a', note: STORED_SECRET },
        },
      ],
    },
  });
const NO_SUCH_FEATURE = 999_999_999;
const UPLOADS_CHECKED =
  'a token with upload and without read gets back only ids: layers/access.test.ts ("a token with upload and without read gets back only ids")';

export const LAYER_ROUTES: Record<string, RouteEntry> = {
  'POST /api/layers/upload': {
    rule: { need: 'upload' },
    probe: (r) => ({ method: 'POST', url: '/api/layers/upload', form: { roomName: r.roomId } }),
    ok: 400,
    noWriteOnlyProbe: UPLOADS_CHECKED,
  },
  'POST /api/layers/upload-chunk': {
    rule: { need: 'upload' },
    probe: (r) => ({ method: 'POST', url: '/api/layers/upload-chunk', form: { roomName: r.roomId } }),
    ok: 400,
    noWriteOnlyProbe: 'its answer is made of what was sent (uploadId, chunkIndex, received): layers/chunked.test.ts',
  },
  'POST /api/layers/process-chunked': {
    rule: { need: 'upload' },
    probe: (r) => ({
      method: 'POST',
      url: '/api/layers/process-chunked',
      body: { roomName: r.roomId, uploadId: 'matrix-absent-upload', fileName: 'absent.geojson' },
    }),
    ok: 404,
    noWriteOnlyProbe: 'answers only {jobId}: layers/chunked.test.ts',
  },
  'POST /api/rooms/{roomId}/layers': {
    rule: { need: 'write' },
    probe: (r) => invalid('POST', `${base(r)}/layers`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({
        method: 'POST',
        url: `${ctx.base}/layers`,
        body: { name: 'sent', geojson: TWO_SQUARES },
      }),
      status: 200,
      answer: { success: 'value', layer: ['id', 'name'] },
    },
  },
  'POST /api/rooms/{roomId}/layers/remote': {
    rule: { need: 'upload' },
    probe: (r) => invalid('POST', `${base(r)}/layers/remote`),
    ok: 400,
    noWriteOnlyProbe: 'answers only {jobId}: layers/remote.test.ts',
  },
  'POST /api/layers/{layerId}/refresh': {
    rule: { need: 'write', byId: true },
    // The fixture layer is not read from an address: an allowed caller hears 409 not_remote.
    probe: (r) => ({ method: 'POST', url: `${layer(r)}/refresh` }),
    ok: 409,
    noWriteOnlyProbe: 'answers only {jobId}: layers/remote.test.ts',
  },
  'GET /api/layers/{roomName}': {
    rule: { need: 'read', embed: true },
    probe: (r) => get(`/api/layers/${r.roomId}`),
    ok: 200,
  },
  'PATCH /api/rooms/{roomId}/layers/{layerId}': {
    rule: { need: 'write' },
    probe: (r) => invalid('PATCH', `${base(r)}/layers/${NO_SUCH_LAYER}`, { name: 'Renamed' }),
    ok: 404,
    writeOnly: {
      request: async (ctx) => ({
        method: 'PATCH',
        url: `${ctx.base}/layers/${(await newLayer(ctx)).layer.id}`,
        body: { name: 'Renamed' },
      }),
      status: 200,
      answer: { success: 'value', layer: ['id', 'name'] },
    },
  },
  'DELETE /api/layers/{layerId}': {
    rule: { need: 'editor', byId: true },
    checkedIn:
      'layers/manage.test.ts: owner and editor sessions delete; a viewer 403; every room token 403 api_token_not_allowed; a stranger and anonymous 404',
  },
  'GET /api/layers/{layerId}/features': {
    rule: { need: 'read', byId: true, shownByPublicDeck: true, embed: true },
    probe: (r) => get(`${layer(r)}/features`),
    ok: 200,
  },
  'GET /api/layers/{layerId}/features/chunks/{chunkIndex}': {
    rule: { need: 'read', byId: true, shownByPublicDeck: true, embed: true },
    probe: (r) => get(`${layer(r)}/features/chunks/0`),
    ok: 200,
  },
  'GET /api/layers/{layerId}/attributes': {
    rule: { need: 'read', byId: true, shownByPublicDeck: true, embed: true },
    probe: (r) => get(`${layer(r)}/attributes?limit=1`),
    ok: 200,
  },
  'GET /api/layers/{layerId}/tiles/{z}/{x}/{y}.mvt': {
    rule: { need: 'read', byId: true, shownByPublicDeck: true, embed: true, basic: true },
    probe: (r) => get(`${layer(r)}/tiles/0/0/0.mvt`),
    ok: 200,
  },
  'POST /api/layers/{layerId}/features': {
    rule: { need: 'write', byId: true },
    probe: (r) => invalid('POST', `${layer(r)}/features`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({
        method: 'POST',
        url: `/api/layers/${(await layerWithNote(ctx)).layer.id}/features`,
        body: { type: 'Feature', geometry: { type: 'Point', coordinates: [7.1, 46.1] }, properties: { name: 'sent' } },
      }),
      status: 201,
      answer: { id: 'value', type: 'value', geometry: 'value', properties: ['name'] },
    },
  },
  'PATCH /api/layers/{layerId}/features/{featureId}': {
    rule: { need: 'write', byId: true },
    probe: (r) => invalid('PATCH', `${layer(r)}/features/${NO_SUCH_FEATURE}`, { properties: { name: 'x' } }),
    ok: 404,
    writeOnly: {
      request: async (ctx) => {
        const { layer: noted } = await layerWithNote(ctx);
        const { features } = await ctx.asOwner('GET', `/api/layers/${noted.id}/features`);
        return {
          method: 'PATCH',
          url: `/api/layers/${noted.id}/features/${features[0].id}`,
          body: { properties: { name: 'renamed' } },
        };
      },
      status: 200,
      answer: { id: 'value', properties: ['name'] },
    },
  },
  'DELETE /api/layers/{layerId}/features/{featureId}': {
    rule: { need: 'write', byId: true },
    probe: (r) => ({ method: 'DELETE', url: `${layer(r)}/features/${NO_SUCH_FEATURE}` }),
    ok: 404,
    writeOnly: {
      request: async (ctx) => {
        const { layer: noted } = await layerWithNote(ctx);
        const { features } = await ctx.asOwner('GET', `/api/layers/${noted.id}/features`);
        return { method: 'DELETE', url: `/api/layers/${noted.id}/features/${features[0].id}` };
      },
      status: 204,
      answer: {},
    },
  },
  'GET /api/layers/{layerId}/fields': {
    rule: { need: 'read', byId: true, embed: true },
    probe: (r) => get(`${layer(r)}/fields`),
    ok: 200,
  },
  'POST /api/layers/{layerId}/fields': {
    rule: { need: 'write', byId: true },
    probe: (r) => invalid('POST', `${layer(r)}/fields`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({
        method: 'POST',
        url: `/api/layers/${(await layerWithNote(ctx)).layer.id}/fields`,
        body: { name: 'added', type: 'text' },
      }),
      status: 201,
      answer: { name: 'value', type: 'value', required: 'value' },
    },
  },
  'PATCH /api/layers/{layerId}/fields/{name}': {
    rule: { need: 'write', byId: true },
    probe: (r) => invalid('PATCH', `${layer(r)}/fields/absent-field`, { required: true }),
    ok: 404,
    writeOnly: {
      request: async (ctx) => ({
        method: 'PATCH',
        url: `/api/layers/${(await layerWithNote(ctx)).layer.id}/fields/note`,
        body: { required: false },
      }),
      status: 200,
      answer: { name: 'value', type: 'value', required: 'value' },
    },
  },
  'DELETE /api/layers/{layerId}/fields/{name}': {
    rule: { need: 'write', byId: true },
    probe: (r) => ({ method: 'DELETE', url: `${layer(r)}/fields/absent-field` }),
    ok: 404,
    writeOnly: {
      request: async (ctx) => ({
        method: 'DELETE',
        url: `/api/layers/${(await layerWithNote(ctx)).layer.id}/fields/note`,
      }),
      status: 204,
      answer: {},
    },
  },
};
