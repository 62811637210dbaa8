import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { assertOk, call, postMultipart, type Response } from '../helpers.js';
import { createInlineLayer, squareFeature } from './layers.js';
import { makePhotos } from './markers.js';
import { newRaster } from './rasters.js';

const VALIDATOR = '/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py';

/** A scratch folder for export files; `remove` deletes it. */
export function scratch() {
  const dir = mkdtempSync(path.join(tmpdir(), 'maproom-exports-'));
  return { file: (name: string) => path.join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** GDAL's GeoPackage validator: what it prints (nothing for a valid file) and its exit status. */
export function validateGpkg(file: string): { status: number | null; output: string } {
  const run = spawnSync('/usr/bin/python3', [VALIDATOR, file], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

export function assertValidGpkg(file: string) {
  const { status, output } = validateGpkg(file);
  assert.equal(output, '', `validate_gpkg.py reports: ${output}`);
  assert.equal(status, 0);
}

/** Every table ogrinfo lists, with its feature count. */
export function ogrTables(file: string): Map<string, number> {
  const text = execFileSync('ogrinfo', ['-ro', '-so', '-al', file], { encoding: 'utf8', maxBuffer: 64 * 1024 ** 2 });
  const tables = new Map<string, number>();
  let current = '';
  for (const line of text.split('\n')) {
    const name = /^Layer name: (.*)$/.exec(line);
    if (name) current = name[1]!;
    const count = /^Feature Count: (\d+)$/.exec(line);
    if (count) tables.set(current, Number(count[1]));
  }
  return tables;
}

/** A table's rows (features with their properties) as GDAL reads them. */
export function ogrRows(file: string, table: string): { geometry: any; properties: Record<string, any> }[] {
  const text = execFileSync('ogr2ogr', ['-f', 'GeoJSONSeq', '/vsistdout/', file, table, '-lco', 'RS=NO'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 ** 2,
  });
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

/** POST /export; the file saved to `file`. */
export async function exportRoom(
  app: FastifyInstance,
  roomId: string,
  auth: string,
  file: string,
  query = '',
): Promise<Response> {
  const res = await call(app, 'POST', `/api/rooms/${roomId}/export${query}`, { auth, body: {} });
  if (res.statusCode === 200) writeFileSync(file, res.rawPayload);
  return res;
}

/** POST /export that must succeed; the file saved to `file`. */
export async function exported(
  app: FastifyInstance,
  roomId: string,
  auth: string,
  file: string,
  query = '',
): Promise<void> {
  const res = await exportRoom(app, roomId, auth, file, query);
  assert.equal(res.statusCode, 200, res.body.slice(0, 300));
}

export function importFile(
  app: FastifyInstance,
  roomId: string,
  auth: string | undefined,
  data: Buffer,
  filename = 'room.gpkg',
) {
  return postMultipart(app, `/api/rooms/${roomId}/import`, { file: { data, filename } }, auth);
}

/**
 * Fills a room with one of everything: an icon, two markers (one with a photo and the icon),
 * a polygon and a line, a vector layer with typed properties, a raster, a comment with a
 * reply on a marker and one on the layer, and a slide showing them.
 */
export async function fillRoom(app: FastifyInstance, roomId: string, auth: string, rasterFile: string) {
  const base = `/api/rooms/${roomId}`;
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="red"/></svg>';
  const icon = assertOk(
    await postMultipart(
      app,
      `${base}/marker-icons`,
      { name: 'Pin', size: '24', icon: { data: svg, filename: 'pin.svg', type: 'image/svg+xml' } },
      auth,
    ),
    201,
  );
  const photos = await makePhotos();
  const upload = assertOk(
    await postMultipart(
      app,
      `${base}/markers/upload-image`,
      { image: { data: photos.photoA, filename: 'a.jpg', type: 'image/jpeg' } },
      auth,
    ),
  );
  const m1 = assertOk(
    await call(app, 'POST', `${base}/markers`, {
      auth,
      body: {
        latitude: 46.95,
        longitude: 7.44,
        title: 'Bridge',
        description: 'Old <b>bridge</b>',
        color: '#ff0000',
        tags: ['a', 'b'],
        eventDate: 1_600_000_000_000,
        markerIconId: icon.iconId ?? icon.icon?.iconId,
        markerIconSize: 32,
        imageKey: upload.imageKey,
        thumbnailKey: upload.thumbnailKey,
      },
    }),
    201,
  ).marker;
  const m2 = assertOk(
    await call(app, 'POST', `${base}/markers`, { auth, body: { latitude: -33.9, longitude: 151.2, title: 'Harbour' } }),
    201,
  ).marker;
  const d1 = assertOk(
    await call(app, 'POST', `${base}/drawings`, {
      auth,
      body: { geometry: squareFeature(7.5, 46.9, 0.01).geometry, label: 'Area', style: { color: '#00ff00' } },
    }),
    201,
  ).drawing;
  assertOk(
    await call(app, 'POST', `${base}/drawings`, {
      auth,
      body: {
        geometry: {
          type: 'LineString',
          coordinates: [
            [7, 46],
            [8, 47],
          ],
        },
      },
    }),
    201,
  );
  const layer = await createInlineLayer(app, roomId, auth, {
    name: 'Fields – ü',
    geojson: {
      type: 'FeatureCollection',
      features: [
        squareFeature(7.44, 46.95, 0.01, { name: 'west', area: 12, ratio: 0.5 }),
        squareFeature(7.47, 46.95, 0.01, { name: 'east', area: 7, ratio: 1.25 }),
      ],
    },
  });
  assertOk(
    await call(app, 'PATCH', `${base}/layers/${layer.id}`, {
      auth,
      body: { style: { color: 'ff8800', fillOpacity: 0.5 } },
    }),
  );
  const raster = await newRaster(app, roomId, auth, rasterFile, { colormap: 'terrain' });
  const c1 = assertOk(
    await call(app, 'POST', `${base}/comments`, {
      auth,
      body: { objectId: m1.id, objectType: 'marker', body: 'Is it open?' },
    }),
    201,
  ).comment;
  assertOk(await call(app, 'POST', `${base}/comments/${c1.id}/replies`, { auth, body: { body: 'Yes' } }), 201);
  assertOk(
    await call(app, 'POST', `${base}/comments`, {
      auth,
      body: { objectId: layer.id, objectType: 'layer', body: 'Fields look right' },
    }),
    201,
  );
  assertOk(
    await call(app, 'POST', `${base}/presentation/slides`, {
      auth,
      body: {
        title: 'Tour',
        view: { lat: 46.95, lng: 7.44, zoom: 12 },
        markerIds: [m1.id, m2.id],
        layerIds: [layer.id],
        rasterLayerIds: [raster.id],
        drawingIds: [d1.id],
      },
    }),
    201,
  );
  return { icon, markers: [m1, m2], layer, raster };
}

/** A room's content as the API shows it, with ids replaced by what they point at, to compare two rooms. */
export async function contentOf(app: FastifyInstance, roomId: string, auth: string) {
  const base = `/api/rooms/${roomId}`;
  const get = async (url: string) => assertOk(await call(app, 'GET', url, { auth }));
  const markers = (await get(`${base}/markers`)).markers as any[];
  const icons = (await get(`${base}/marker-icons`)).icons as any[];
  const drawings = (await get(`${base}/drawings`)).drawings as any[];
  const layers = (await get(`/api/layers/${roomId}`)).layers as any[];
  const rasters = (await get(`${base}/raster-layers`)).rasterLayers as any[];
  const comments = (await get(`${base}/comments`)).comments as any[];
  const slides = (await get(`${base}/presentation/slides`)).slides as any[];
  const name = new Map<string, string>();
  for (const m of markers) name.set(m.id, `marker:${m.title}`);
  for (const i of icons) name.set(i.iconId, `icon:${i.name}`);
  for (const d of drawings) name.set(d.id, `drawing:${d.label}`);
  for (const l of layers) name.set(l.id, `layer:${l.name}`);
  for (const r of rasters) name.set(r.id, `raster:${r.name}`);
  const features = [];
  for (const l of layers)
    features.push(
      (await get(`/api/layers/${l.id}/features`)).features.map((f: any) => ({
        id: f.id,
        geometry: f.geometry,
        properties: f.properties,
      })),
    );
  const strip = ({ id: _id, createdAt: _c, updatedAt: _u, createdBy: _b, ...rest }: any) => rest;
  return {
    markers: markers
      .map((m) => ({
        ...strip(m),
        markerIconId: name.get(m.markerIconId) ?? m.markerIconId,
        imageKey: Boolean(m.imageKey),
        thumbnailKey: Boolean(m.thumbnailKey),
      }))
      .sort((a, b) => a.title.localeCompare(b.title)),
    icons: icons.map(({ iconId: _i, createdAt: _c, createdBy: _b, ...rest }) => rest),
    drawings: drawings.map(strip).sort((a, b) => String(a.label).localeCompare(String(b.label))),
    layers: layers.map(({ id: _i, createdAt: _c, updatedAt: _u, createdBy: _b, sourceFormat: _f, ...rest }) => rest),
    features,
    rasters: rasters.map(({ id: _i, createdAt: _c, updatedAt: _u, createdBy: _b, tileUrl: _t, ...rest }) => rest),
    comments: comments.map((c) => ({
      body: c.body,
      object: name.get(c.objectId),
      objectType: c.objectType,
      resolved: c.resolved,
      replies: c.replies.map((r: any) => r.body),
    })),
    slides: slides.map((s) => ({
      title: s.title,
      view: s.view,
      markers: s.markerIds.map((i: string) => name.get(i)),
      layers: s.layerIds.map((i: string) => name.get(i)),
      rasters: s.rasterLayerIds.map((i: string) => name.get(i)),
      drawings: s.drawingIds.map((i: string) => name.get(i)),
    })),
  };
}
