import { ApiError, api, ok } from '../../api/client';
import type { RoomModel } from '../room-model';

/** One feature of a vector layer as stored: its id, geometry (longitude/latitude), typed properties and version. */
export interface StoredFeature {
  id: number;
  geometry: GeoJSON.Geometry;
  properties: Record<string, unknown>;
  /** Its edits since its layer was made (1 as uploaded): a change is sent based on it. */
  version: number;
}

/** A feature of a layer by its id (the room's OGC API item, whose ETag is its version), for the inspect panel. */
export async function readFeature(model: RoomModel, layerId: string, featureId: number): Promise<StoredFeature> {
  const path = { roomId: model.roomId, collectionId: layerId, featureId: String(featureId) };
  const call = api.GET('/api/rooms/{roomId}/ogc/collections/{collectionId}/items/{featureId}', { params: { path } });
  // The route answers application/geo+json, which the OpenAPI document cannot type.
  const feature = (await ok(call)) as unknown as {
    id: number;
    geometry: GeoJSON.Geometry;
    properties: Record<string, unknown> | null;
  };
  const version = Number(/^"(\d+)"$/.exec((await call).response.headers.get('etag') ?? '')?.[1] ?? 1);
  return { id: Number(feature.id), geometry: feature.geometry, properties: feature.properties ?? {}, version };
}

/** A feature as a feature route answers it. */
const storedOf = (saved: { id: number; geometry: unknown; properties: Record<string, unknown>; version: number }) => ({
  id: saved.id,
  geometry: saved.geometry as GeoJSON.Geometry,
  properties: saved.properties,
  version: saved.version,
});

/**
 * Changes a feature's geometry and/or some of its properties (null removes one), based on the
 * version the page read: someone's change since is refused (ApiError `version_conflict`,
 * `details.by` naming them). The layer's tiles follow through the live channel's `feature.updated`.
 */
export async function updateFeature(
  layerId: string,
  feature: StoredFeature,
  change: { geometry?: GeoJSON.Geometry; properties?: Record<string, unknown> },
): Promise<StoredFeature> {
  const path = { params: { path: { layerId, featureId: feature.id } } };
  const body = { ...change, ifVersion: feature.version } as never;
  return storedOf(await ok(api.PATCH('/api/layers/{layerId}/features/{featureId}', { ...path, body })));
}

/** Changes some properties of a feature, based on the version read (see updateFeature). */
export function updateFeatureProperties(
  layerId: string,
  feature: StoredFeature,
  properties: Record<string, unknown>,
): Promise<StoredFeature> {
  return updateFeature(layerId, feature, { properties });
}

/** Adds a feature of this geometry to a layer (its fields' defaults as its properties). */
export async function createFeature(layerId: string, geometry: GeoJSON.Geometry): Promise<StoredFeature> {
  const body = { type: 'Feature', geometry, properties: {} } as never;
  return storedOf(await ok(api.POST('/api/layers/{layerId}/features', { params: { path: { layerId } }, body })));
}

/** Deletes a feature of a layer (history keeps it: a restore brings it back with its id). */
export async function deleteFeature(layerId: string, featureId: number): Promise<void> {
  await ok(api.DELETE('/api/layers/{layerId}/features/{featureId}', { params: { path: { layerId, featureId } } }));
}

/** The name a conflict gives (`version_conflict`'s `details.by`), or null for another error. */
export function conflictBy(error: unknown): string | null {
  if (!(error instanceof ApiError && error.code === 'version_conflict')) return null;
  return String((error.details as { by?: unknown } | undefined)?.by ?? '');
}

/** A page of a layer's attribute table (fields, rows, the cursor of the next page). */
export interface AttributesPage {
  fields: { name: string; type: string }[];
  rows: { id: number; properties: Record<string, unknown>; bbox: number[] }[];
  next: string | null;
}

/** The attribute table's order and filter. */
export interface AttributesView {
  sort: string;
  order: 'asc' | 'desc';
  q: string;
}

/** A page of a layer's attribute table (keyset: `after` is the previous page's `next`), a read for display. */
export async function readAttributes(
  layerId: string,
  view: AttributesView,
  after?: string,
  limit = 50,
): Promise<AttributesPage> {
  const query = {
    limit,
    sort: view.sort,
    order: view.order,
    ...(view.q.trim() && { q: view.q.trim() }),
    ...(after && { after }),
  };
  return ok(api.GET('/api/layers/{layerId}/attributes', { params: { path: { layerId }, query } }));
}

/** Every band's value of a raster at a point (null at nodata or outside it), for the identify popup (a read). */
export async function readRasterValues(
  model: RoomModel,
  layerId: string,
  lon: number,
  lat: number,
): Promise<(number | null)[]> {
  const params = { path: { roomId: model.roomId, layerId }, query: { lon, lat } };
  const { values } = await ok(api.GET('/api/rooms/{roomId}/raster-layers/{layerId}/point', { params }));
  return values;
}
