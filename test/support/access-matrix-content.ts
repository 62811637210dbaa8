import assert from 'node:assert/strict';
import {
  base,
  get,
  invalid,
  NO_SUCH,
  notMultipart,
  type RouteEntry,
  type WriteOnlyContext,
} from './access-matrix-routes.js';
import { iconForm, jpeg, ONE_POINT_COLLECTION, POINT, STORED_SECRET, VIEW } from './access-matrix-world.js';

/**
 * The expectation table's entries for room content (markers, images, icons, bulk import and
 * its jobs, drawings, slides, comments): each mutation a room token may call gives, beside its
 * probe, a VALID request for a caller that may write but not read, and the answer that caller
 * must get: the ids and the fields it sent, nothing stored (docs/contract-decisions.md, "Callers that may
 * write but not read").
 */

const newMarker = (ctx: WriteOnlyContext) =>
  ctx.asOwner('POST', `${ctx.base}/markers`, {
    latitude: 1,
    longitude: 2,
    title: 'Stored',
    description: STORED_SECRET,
  });
const newDrawing = (ctx: WriteOnlyContext) =>
  ctx.asOwner('POST', `${ctx.base}/drawings`, { geometry: POINT, label: STORED_SECRET });
const newSlide = (ctx: WriteOnlyContext) =>
  ctx.asOwner('POST', `${ctx.base}/presentation/slides`, { title: 'Stored', body: STORED_SECRET, view: VIEW });
const newComment = (ctx: WriteOnlyContext) =>
  ctx.asOwner('POST', `${ctx.base}/comments`, { objectId: 'marker-x', objectType: 'marker', body: STORED_SECRET });
const SENT_COMMENT = { objectId: 'marker-sent', objectType: 'marker', body: 'sent by the token' };
const uploadForm = async () => ({ image: await jpeg(), thumbnail: await jpeg() });

/** The id of the history entry of a marker's deletion, made by the owner. */
async function deletedMarkerEntry(ctx: WriteOnlyContext) {
  const { marker } = await newMarker(ctx);
  await ctx.asOwner('DELETE', `${ctx.base}/markers/${marker.id}`);
  const { events } = await ctx.asOwner('GET', `${ctx.base}/history?limit=1`);
  return events[0].id as string;
}

export const CONTENT_ROUTES: Record<string, RouteEntry> = {
  // Restore from history: a valid request restores a marker the owner deleted.
  'POST /api/rooms/{roomId}/history/{entryId}/restore': {
    rule: { need: 'write' },
    probe: (r) => ({ method: 'POST', url: `${base(r)}/history/event-absent000000000/restore` }),
    ok: 404,
    writeOnly: {
      request: async (ctx) => ({ method: 'POST', url: `${ctx.base}/history/${await deletedMarkerEntry(ctx)}/restore` }),
      status: 200,
      answer: {
        success: 'value',
        objectType: 'value',
        objectId: 'value',
        restoredFrom: 'value',
        object: ['id'],
        notes: 'value',
        overwrote: 'value',
      },
    },
  },

  // Markers, images, icons, bulk import and its jobs.
  'GET /api/rooms/{roomId}/markers': {
    rule: { need: 'read', embed: true },
    probe: (r) => get(`${base(r)}/markers`),
    ok: 200,
  },
  'GET /api/rooms/{roomId}/search': {
    rule: { need: 'read' },
    probe: (r) => get(`${base(r)}/search?q=a`),
    ok: 200,
    answer: (body) => assert.ok(Array.isArray(body.results), 'a list of results'),
  },
  // The matrix's service has no GEOCODER_URL: whoever may search hears not_configured (search/geocode.test.ts asks a geocoder).
  'GET /api/geocode': { rule: { session: true }, probe: () => get('/api/geocode?q=Bern'), ok: 404 },
  'GET /api/rooms/{roomId}/markers/feed': {
    rule: { need: 'read', embed: true },
    probe: (r) => get(`${base(r)}/markers/feed`),
    ok: 200,
  },
  'POST /api/rooms/{roomId}/markers': {
    rule: { need: 'write' },
    probe: (r) => invalid('POST', `${base(r)}/markers`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({
        method: 'POST',
        url: `${ctx.base}/markers`,
        body: { latitude: 1, longitude: 2, title: 'sent' },
      }),
      status: 201,
      answer: { success: 'value', marker: ['id', 'latitude', 'longitude', 'title'] },
    },
  },
  'GET /api/rooms/{roomId}/markers/{markerId}': {
    rule: { need: 'read', embed: true },
    probe: (r) => get(`${base(r)}/markers/${r.fixtures.markerId}`),
    ok: 200,
  },
  'PATCH /api/rooms/{roomId}/markers/{markerId}': {
    rule: { need: 'write' },
    probe: (r) => invalid('PATCH', `${base(r)}/markers/${r.fixtures.markerId}`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({
        method: 'PATCH',
        url: `${ctx.base}/markers/${(await newMarker(ctx)).marker.id}`,
        body: { title: 'sent' },
      }),
      status: 200,
      answer: { success: 'value', marker: ['id', 'title'] },
    },
  },
  'DELETE /api/rooms/{roomId}/markers/{markerId}': {
    rule: { need: 'write' },
    probe: (r) => ({ method: 'DELETE', url: `${base(r)}/markers/${NO_SUCH.marker}` }),
    ok: 404,
    writeOnly: {
      request: async (ctx) => ({ method: 'DELETE', url: `${ctx.base}/markers/${(await newMarker(ctx)).marker.id}` }),
      status: 200,
      answer: { success: 'value', markerId: 'value' },
    },
  },
  'POST /api/rooms/{roomId}/markers/upload-image': {
    rule: { need: 'write' },
    probe: (r) => notMultipart(`${base(r)}/markers/upload-image`),
    ok: 415,
    writeOnly: {
      request: async (ctx) => ({ method: 'POST', url: `${ctx.base}/markers/upload-image`, form: await uploadForm() }),
      status: 200,
      answer: { imageKey: 'value', thumbnailKey: 'value', exif: 'value' },
    },
  },
  // The fixture marker is on the fixture slide: a public deck shows its image and icon.
  'GET /api/rooms/{roomId}/markers/image': {
    rule: { need: 'read', shownByPublicDeck: true, embed: true },
    probe: (r) => get(`${base(r)}/markers/image?key=${encodeURIComponent(r.fixtures.imageKey)}`),
    ok: 200,
  },
  'POST /api/rooms/{roomId}/marker-icons': {
    rule: { need: 'write' },
    probe: (r) => notMultipart(`${base(r)}/marker-icons`),
    ok: 415,
    writeOnly: {
      request: async (ctx) => ({ method: 'POST', url: `${ctx.base}/marker-icons`, form: await iconForm('sent') }),
      status: 201,
      answer: { iconId: 'value' },
    },
  },
  'GET /api/rooms/{roomId}/marker-icons': {
    rule: { need: 'read', embed: true },
    probe: (r) => get(`${base(r)}/marker-icons`),
    ok: 200,
  },
  'GET /api/rooms/{roomId}/marker-icons/{iconId}': {
    rule: { need: 'read', shownByPublicDeck: true, embed: true },
    probe: (r) => get(`${base(r)}/marker-icons/${r.fixtures.iconId}`),
    ok: 200,
  },
  'POST /api/rooms/{roomId}/bulk-import': {
    rule: { need: 'write' },
    probe: (r) => notMultipart(`${base(r)}/bulk-import`),
    ok: 415,
    writeOnly: {
      request: async (ctx) => ({
        method: 'POST',
        url: `${ctx.base}/bulk-import`,
        form: { file: { data: ONE_POINT_COLLECTION, filename: 'points.geojson' } },
      }),
      status: 200,
      answer: { jobId: 'value' },
    },
  },
  'GET /api/jobs/{jobId}': {
    rule: { need: 'read', byId: true },
    probe: (r) => get(`/api/jobs/${r.fixtures.jobId}`),
    ok: 200,
  },
  'GET /api/layers/jobs/{jobId}': {
    rule: { need: 'read', byId: true },
    probe: (r) => get(`/api/layers/jobs/${r.fixtures.jobId}`),
    ok: 200,
  },

  // Drawings.
  'GET /api/rooms/{roomId}/drawings': {
    rule: { need: 'read', embed: true },
    probe: (r) => get(`${base(r)}/drawings`),
    ok: 200,
  },
  'POST /api/rooms/{roomId}/drawings': {
    rule: { need: 'write' },
    probe: (r) => invalid('POST', `${base(r)}/drawings`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({
        method: 'POST',
        url: `${ctx.base}/drawings`,
        body: { geometry: POINT, label: 'sent' },
      }),
      status: 201,
      answer: { success: 'value', drawing: ['id', 'geometry', 'label'] },
    },
  },
  'PATCH /api/rooms/{roomId}/drawings/{drawingId}': {
    rule: { need: 'write' },
    probe: (r) => invalid('PATCH', `${base(r)}/drawings/${r.fixtures.drawingId}`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({
        method: 'PATCH',
        url: `${ctx.base}/drawings/${(await newDrawing(ctx)).drawing.id}`,
        body: { style: { color: '#ff0000' } },
      }),
      status: 200,
      answer: { success: 'value', drawing: ['id', 'style'] },
    },
  },
  'DELETE /api/rooms/{roomId}/drawings/{drawingId}': {
    rule: { need: 'write' },
    probe: (r) => ({ method: 'DELETE', url: `${base(r)}/drawings/${NO_SUCH.drawing}` }),
    ok: 404,
    writeOnly: {
      request: async (ctx) => ({ method: 'DELETE', url: `${ctx.base}/drawings/${(await newDrawing(ctx)).drawing.id}` }),
      status: 200,
      answer: { success: 'value', drawingId: 'value' },
    },
  },

  // The presentation and its slides.
  'GET /api/rooms/{roomId}/presentation': {
    rule: { need: 'deck', embed: true },
    probe: (r) => get(`${base(r)}/presentation`),
    ok: 200,
  },
  'GET /api/rooms/{roomId}/presentation/slides': {
    rule: { need: 'read', embed: true },
    probe: (r) => get(`${base(r)}/presentation/slides`),
    ok: 200,
  },
  'POST /api/rooms/{roomId}/presentation/slides': {
    rule: { need: 'write' },
    probe: (r) => invalid('POST', `${base(r)}/presentation/slides`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({
        method: 'POST',
        url: `${ctx.base}/presentation/slides`,
        body: { title: 'sent', view: VIEW },
      }),
      status: 201,
      answer: { success: 'value', slide: ['id', 'title', 'view'] },
    },
  },
  'PUT /api/rooms/{roomId}/presentation/slides/order': {
    rule: { need: 'write' },
    probe: (r) => invalid('PUT', `${base(r)}/presentation/slides/order`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => {
        await newSlide(ctx);
        const { slides } = await ctx.asOwner('GET', `${ctx.base}/presentation/slides`);
        return {
          method: 'PUT',
          url: `${ctx.base}/presentation/slides/order`,
          body: { slideIds: slides.map((s: { id: string }) => s.id).reverse() },
        };
      },
      status: 200,
      answer: { success: 'value', slides: { each: ['id'] } },
    },
  },
  'PATCH /api/rooms/{roomId}/presentation/slides/{slideId}': {
    rule: { need: 'write' },
    probe: (r) => invalid('PATCH', `${base(r)}/presentation/slides/${r.fixtures.slideId}`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({
        method: 'PATCH',
        url: `${ctx.base}/presentation/slides/${(await newSlide(ctx)).slide.id}`,
        body: { title: 'sent' },
      }),
      status: 200,
      answer: { success: 'value', slide: ['id', 'title'] },
    },
  },
  'DELETE /api/rooms/{roomId}/presentation/slides/{slideId}': {
    rule: { need: 'write' },
    probe: (r) => ({ method: 'DELETE', url: `${base(r)}/presentation/slides/${NO_SUCH.slide}` }),
    ok: 404,
    writeOnly: {
      request: async (ctx) => ({
        method: 'DELETE',
        url: `${ctx.base}/presentation/slides/${(await newSlide(ctx)).slide.id}`,
      }),
      status: 200,
      answer: { success: 'value', slideId: 'value' },
    },
  },

  // Comments and replies: viewers too; tokens need write; tokens delete only their own.
  'GET /api/rooms/{roomId}/comments': { rule: { need: 'read' }, probe: (r) => get(`${base(r)}/comments`), ok: 200 },
  'POST /api/rooms/{roomId}/comments': {
    rule: { need: 'comment' },
    probe: (r) => invalid('POST', `${base(r)}/comments`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({ method: 'POST', url: `${ctx.base}/comments`, body: SENT_COMMENT }),
      status: 201,
      answer: { success: 'value', comment: ['id', 'objectId', 'objectType', 'body'] },
    },
  },
  'POST /api/rooms/{roomId}/comments/{commentId}/replies': {
    rule: { need: 'comment' },
    probe: (r) => invalid('POST', `${base(r)}/comments/${r.fixtures.commentId}/replies`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({
        method: 'POST',
        url: `${ctx.base}/comments/${(await newComment(ctx)).comment.id}/replies`,
        body: { body: 'sent' },
      }),
      status: 201,
      answer: { success: 'value', reply: ['id', 'body'] },
    },
  },
  'PATCH /api/rooms/{roomId}/comments/{commentId}': {
    rule: { need: 'write' },
    probe: (r) => invalid('PATCH', `${base(r)}/comments/${r.fixtures.commentId}`),
    ok: 400,
    writeOnly: {
      request: async (ctx) => ({
        method: 'PATCH',
        url: `${ctx.base}/comments/${(await newComment(ctx)).comment.id}`,
        body: { resolved: false },
      }),
      status: 200,
      answer: { success: 'value', comment: ['id', 'resolved'] },
    },
  },
  'DELETE /api/rooms/{roomId}/comments/{commentId}': {
    rule: { need: 'comment' },
    probe: (r) => ({ method: 'DELETE', url: `${base(r)}/comments/${NO_SUCH.comment}` }),
    ok: 404,
    writeOnly: {
      // A token deletes only what it wrote: the token writes the comment first.
      request: async (ctx) => ({
        method: 'DELETE',
        url: `${ctx.base}/comments/${(await ctx.asToken('POST', `${ctx.base}/comments`, SENT_COMMENT)).comment.id}`,
      }),
      status: 200,
      answer: { success: 'value', commentId: 'value' },
    },
  },
  'DELETE /api/rooms/{roomId}/comments/{commentId}/replies/{replyId}': {
    rule: { need: 'comment' },
    probe: (r) => ({ method: 'DELETE', url: `${base(r)}/comments/${r.fixtures.commentId}/replies/${NO_SUCH.reply}` }),
    ok: 404,
    writeOnly: {
      request: async (ctx) => {
        const commentId = (await newComment(ctx)).comment.id;
        const { reply } = await ctx.asToken('POST', `${ctx.base}/comments/${commentId}/replies`, { body: 'sent' });
        return { method: 'DELETE', url: `${ctx.base}/comments/${commentId}/replies/${reply.id}` };
      },
      status: 200,
      answer: { success: 'value', replyId: 'value' },
    },
  },
};
