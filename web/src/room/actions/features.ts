import { api, ok } from '../../api/client';
import type { RoomModel } from '../room-model';

/** One feature of a vector layer as stored: its id, geometry (longitude/latitude) and typed properties. */
export interface StoredFeature {
  id: number;
  geometry: GeoJSON.Geometry;
  properties: Record<string, unknown>;
}

/** A feature of a layer by its id (the room's OGC API item), for the inspect panel (a read, for display). */
export async function readFeature(model: RoomModel, layerId: string, featureId: number): Promise<StoredFeature> {
  const path = { roomId: model.roomId, collectionId: layerId, featureId: String(featureId) };
  // The route answers application/geo+json, which the OpenAPI document cannot type.
  const feature = (await ok(
    api.GET('/api/rooms/{roomId}/ogc/collections/{collectionId}/items/{featureId}', { params: { path } }),
  )) as unknown as { id: number; geometry: GeoJSON.Geometry; properties: Record<string, unknown> | null };
  return { id: Number(feature.id), geometry: feature.geometry, properties: feature.properties ?? {} };
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
