/** The rooms and decks the web benchmark (bench/web.ts) opens, made over HTTP as a script would. */
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { api, ROOM_ID, type Server, setUp, sleep, TMP, uploadMultipart } from './harness.js';
import type { View } from './web-pages.js';

/** `count` markers at random places inside `bbox`, as a GeoJSON file for bulk import. */
export async function markersIn(bbox: number[], count: number): Promise<string> {
  const file = path.join(TMP, 'web-markers.geojson');
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const colours = ['#e53e3e', '#3182ce', '#38a169', '#d69e2e'];
  function* features() {
    yield '{"type":"FeatureCollection","features":[';
    for (let i = 0; i < count; i++) {
      const lon = bbox[0]! + random() * (bbox[2]! - bbox[0]!);
      const lat = bbox[1]! + random() * (bbox[3]! - bbox[1]!);
      yield `${i ? ',' : ''}{"type":"Feature","geometry":{"type":"Point","coordinates":[${lon.toFixed(6)},${lat.toFixed(6)}]},"properties":{"title":"Site ${i + 1}","color":"${colours[i % 4]}"}}`;
    }
    yield ']}';
  }
  await pipeline(Readable.from(features()), createWriteStream(file));
  return file;
}

export async function bulkImport(server: Server, token: string, file: string) {
  const sent = await uploadMultipart(`${server.url}/api/rooms/${ROOM_ID}/bulk-import`, token, {
    field: 'file',
    path: file,
    contentType: 'application/geo+json',
  });
  if (sent.status !== 200) throw new Error(`bulk import: ${sent.status} ${sent.body}`);
  const { jobId } = JSON.parse(sent.body) as { jobId: string };
  for (;;) {
    const job = await api<{ stage: string; message: string | null }>(server.url, 'GET', `/api/jobs/${jobId}`, {
      token,
    });
    if (job.stage === 'error') throw new Error(`bulk import failed: ${job.message}`);
    if (job.stage === 'complete') return;
    await sleep(200);
  }
}

/** A square polygon of `half` degrees around a point. */
const square = (lng: number, lat: number, half: number) => ({
  type: 'Polygon',
  coordinates: [
    [
      [lng - half, lat - half],
      [lng + half, lat - half],
      [lng + half, lat + half],
      [lng - half, lat + half],
      [lng - half, lat - half],
    ],
  ],
});

/**
 * The room's deck, published: the first slide at `view` shows the 5 markers nearest its centre
 * (from the markers feed), a labelled drawing and `layerIds`; the second, elsewhere, 3 others.
 */
export async function publishDeck(
  server: Server,
  tokens: { script: string; owner: string },
  view: View,
  layerIds: string[],
  elsewhere: View,
) {
  const base = `/api/rooms/${ROOM_ID}`;
  const feed = await api<{ ids: string[]; latitudes: number[]; longitudes: number[] }>(
    server.url,
    'GET',
    `${base}/markers/feed`,
    { token: tokens.script },
  );
  const nearest = (at: View, n: number) =>
    feed.ids
      .map((id, i) => ({ id, d: Math.hypot(feed.longitudes[i]! - at.lng, feed.latitudes[i]! - at.lat) }))
      .sort((a, b) => a.d - b.d)
      .slice(0, n)
      .map((m) => m.id);
  const { drawing } = await api(server.url, 'POST', `${base}/drawings`, {
    token: tokens.script,
    body: { geometry: square(view.lng, view.lat, 0.002), label: 'Survey area' },
  });
  await api(server.url, 'POST', `${base}/presentation/slides`, {
    token: tokens.script,
    body: { title: 'The survey', view, markerIds: nearest(view, 5), drawingIds: [drawing.id], layerIds },
  });
  await api(server.url, 'POST', `${base}/presentation/slides`, {
    token: tokens.script,
    body: { title: 'Elsewhere', view: elsewhere, markerIds: nearest(elsewhere, 3) },
  });
  await api(server.url, 'PATCH', `${base}/presentation/public`, { token: tokens.owner, body: { isPublic: true } });
}

/**
 * A small room on `server`: 3 markers, 3 small vector layers, the OpenStreetMap base layer, its
 * default view on them, and a published deck of two slides. Answers the owner's saved session.
 */
export async function smallRoom(server: Server): Promise<string> {
  const token = await setUp(server.url, ['read', 'write', 'upload']);
  const session = await api(server.url, 'POST', '/api/auth/login', {
    body: { email: 'bench@example.com', password: 'bench-password-1' },
  });
  const view = { lat: 46.948, lng: 7.4474, zoom: 13 };
  const base = `/api/rooms/${ROOM_ID}`;
  const markerIds: string[] = [];
  const layerIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const { marker } = await api(server.url, 'POST', `${base}/markers`, {
      token,
      body: { latitude: view.lat + 0.004 * i, longitude: view.lng - 0.006 * i, title: `Site ${i + 1}` },
    });
    markerIds.push(marker.id);
    const { layer } = await api(server.url, 'POST', `${base}/layers`, {
      token,
      body: {
        name: `Area ${i + 1}`,
        geojson: {
          type: 'FeatureCollection',
          features: [
            { type: 'Feature', properties: {}, geometry: square(view.lng + 0.01 * i, view.lat - 0.005, 0.003) },
          ],
        },
      },
    });
    layerIds.push(layer.id);
  }
  await api(server.url, 'PATCH', `${base}/camera-settings`, {
    token: session.token,
    body: { defaultView: view, defaultBaseLayer: 'osm' },
  });
  await api(server.url, 'POST', `${base}/presentation/slides`, {
    token,
    body: { title: 'Three sites', view, baseLayer: 'osm', markerIds, layerIds: layerIds.slice(0, 2) },
  });
  await api(server.url, 'POST', `${base}/presentation/slides`, {
    token,
    body: { title: 'The third area', view: { ...view, zoom: 15 }, layerIds: layerIds.slice(2) },
  });
  await api(server.url, 'PATCH', `${base}/presentation/public`, { token: session.token, body: { isPublic: true } });
  return JSON.stringify(session);
}
