import type { FieldType, LayerField } from '../../geo/feature-fields.js';
import type { Bbox } from '../../geo/tile-math.js';
import type { DrawingsTable } from '../../db/tables.js';
import { presentDrawing } from '../drawings/drawings.presenter.js';
import { type MarkerRow, presentMarker } from '../markers/markers.presenter.js';
import { type Collection, CONFORMANCE_CLASSES, CRS84, type Extent, type Link } from './ogc.schemas.js';

/**
 * The OGC API – Features documents of a room, built from what the service found: the landing
 * page, conformance, collections, the JSON schema a collection's `describedby` link names, and
 * pages of features as GeoJSON text (a vector layer's stored feature texts are concatenated,
 * never parsed). `base` is the room's endpoint, `…/api/rooms/:roomId/ogc`, absolute.
 */

const JSON_TYPE = 'application/json';
export const GEOJSON_TYPE = 'application/geo+json';
export const OPENAPI_TYPE = 'application/vnd.oai.openapi+json;version=3.0';
export const SCHEMA_TYPE = 'application/schema+json';

/** A JSON schema of one property. */
export type PropertySchema = Record<string, unknown>;

/** A collection as the service found it. */
export interface CollectionInfo {
  id: string;
  title: string;
  description?: string;
  bbox: Bbox | null;
  /** Epoch milliseconds; null ends are open. */
  interval: [number, number] | null;
  /** Its features' properties, by name. */
  properties: Record<string, PropertySchema>;
  /** The features' `id` is an integer (layers) or a string (markers, drawings). */
  idType: 'integer' | 'string';
  /** The geometry type its features have, when they have one. */
  geometry: DeclaredGeometry;
}

/**
 * What a collection declares of its features' geometry: one type, or a type and its multi-part
 * form (`multi`), or null (any type). Declared in its JSON schema (see `geometrySchema`).
 */
export type DeclaredGeometry = { type: 'Point' | 'LineString' | 'Polygon'; multi: boolean } | null;

const PRIMARY_GEOMETRY = { 'x-ogc-role': 'primary-geometry' };
const geoJsonSchema = (type: string) => ({ $ref: `https://geojson.org/schema/${type}.json` });

/**
 * The schema of a feature's geometry: the GeoJSON schema of its type (or of either type), with
 * the `format` and `x-ogc-role` of OGC API – Features Part 5 (`geometry-polygon`,
 * `geometry-polygon-or-multipolygon`, `geometry-any`), which newer clients read.
 */
function geometrySchema(geometry: DeclaredGeometry): PropertySchema {
  if (!geometry) return { ...geoJsonSchema('Geometry'), format: 'geometry-any', ...PRIMARY_GEOMETRY };
  const { type, multi } = geometry;
  const name = type.toLowerCase();
  if (!multi) return { ...geoJsonSchema(type), format: `geometry-${name}`, ...PRIMARY_GEOMETRY };
  return {
    oneOf: [geoJsonSchema(type), geoJsonSchema(`Multi${type}`)],
    format: `geometry-${name}-or-multi${name}`,
    ...PRIMARY_GEOMETRY,
  };
}

export function landingPage(base: string, roomName: string) {
  return {
    title: `${roomName} (Maproom)`,
    description: "The room's markers, drawings and vector layers as OGC API – Features collections",
    links: [
      { href: base, rel: 'self', type: JSON_TYPE, title: 'This document' },
      { href: `${base}/api`, rel: 'service-desc', type: OPENAPI_TYPE, title: 'The OpenAPI 3.0 definition' },
      { href: `${base}/conformance`, rel: 'conformance', type: JSON_TYPE, title: 'Conformance classes' },
      { href: `${base}/collections`, rel: 'data', type: JSON_TYPE, title: 'The collections' },
    ],
  };
}

export const conformance = () => ({ conformsTo: CONFORMANCE_CLASSES });

function extentOf(info: CollectionInfo): Extent | undefined {
  if (!info.bbox && !info.interval) return undefined;
  return {
    ...(info.bbox && { spatial: { bbox: [info.bbox], crs: CRS84 } }),
    ...(info.interval && {
      temporal: {
        interval: [info.interval.map((ms) => new Date(ms).toISOString())],
        trs: 'http://www.opengis.net/def/uom/ISO-8601/0/Gregorian',
      },
    }),
  };
}

export function collectionDocument(info: CollectionInfo, base: string): Collection {
  const self = `${base}/collections/${encodeURIComponent(info.id)}`;
  const extent = extentOf(info);
  return {
    id: info.id,
    title: info.title,
    ...(info.description && { description: info.description }),
    links: [
      { href: self, rel: 'self', type: JSON_TYPE, title: 'This collection' },
      { href: `${self}?f=json`, rel: 'alternate', type: JSON_TYPE, title: 'This collection as JSON' },
      { href: `${self}/items`, rel: 'items', type: GEOJSON_TYPE, title: 'Its features' },
      { href: `${self}/schema`, rel: 'describedby', type: SCHEMA_TYPE, title: "Its features' properties" },
    ],
    ...(extent && { extent }),
    itemType: 'feature',
    crs: [CRS84],
  };
}

export function collectionsDocument(infos: CollectionInfo[], base: string) {
  return {
    links: [{ href: `${base}/collections`, rel: 'self', type: JSON_TYPE, title: 'This document' }],
    collections: infos.map((info) => collectionDocument(info, base)),
  };
}

/** The JSON schema of a collection's features (GeoJSON Features with these properties). */
export function featureSchema(info: CollectionInfo, base: string) {
  return {
    $schema: 'https://json-schema.org/draft/2019-09/schema',
    $id: `${base}/collections/${encodeURIComponent(info.id)}/schema`,
    title: info.title,
    type: 'object',
    required: ['type', 'geometry', 'properties'],
    properties: {
      type: { type: 'string', enum: ['Feature'] },
      id: { type: info.idType },
      geometry: geometrySchema(info.geometry),
      properties: { type: 'object', properties: info.properties },
    },
  };
}

const FIELD_SCHEMAS: Record<FieldType, PropertySchema> = {
  integer: { type: 'integer' },
  real: { type: 'number' },
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  datetime: { type: 'string', format: 'date-time' },
  json: {},
  choice: { type: 'string' },
};

export const fieldSchemas = (fields: LayerField[]): Record<string, PropertySchema> =>
  Object.fromEntries(fields.map((field) => [field.name, FIELD_SCHEMAS[field.type]]));

const text = { type: 'string' };
const integer = { type: 'integer' };
/** The properties of a marker feature: the marker's fields as the API answers them, without its position. */
export const MARKER_PROPERTIES: Record<string, PropertySchema> = {
  title: text,
  description: text,
  color: text,
  // A JSON array as text, so that QGIS 3.22 (which types a field by the first page) reads it alike whatever that page holds.
  tags: { ...text, contentMediaType: 'application/json', description: 'The tags as the text of a JSON array' },
  eventDate: { ...integer, description: 'Epoch milliseconds' },
  markerIconId: text,
  markerIconSize: integer,
  imageKey: text,
  thumbnailKey: text,
  embeddedMediaUrl: text,
  mediaSize: text,
  createdBy: text,
  createdAt: integer,
  updatedAt: integer,
};
/** The properties of a drawing feature: its label, style (an object) and authorship. */
export const DRAWING_PROPERTIES: Record<string, PropertySchema> = {
  label: text,
  style: { type: 'object' },
  createdBy: text,
  createdAt: integer,
  updatedAt: integer,
};

export function markerFeatureText(row: MarkerRow): string {
  const { id, latitude, longitude, imageMeta: _meta, ...properties } = presentMarker(row);
  const { tags } = properties;
  return JSON.stringify({
    type: 'Feature',
    id,
    geometry: { type: 'Point', coordinates: [longitude, latitude] },
    properties: { ...properties, tags: tags === null ? null : JSON.stringify(tags) },
  });
}

export function drawingFeatureText(row: DrawingsTable): string {
  const { id, geometry, ...properties } = presentDrawing(row);
  return JSON.stringify({ type: 'Feature', id, geometry, properties });
}

/** A page of `/items`. */
export interface ItemsPage {
  features: string[];
  /** Left out when not counted (property filters, a bbox holding more than a request may read). */
  numberMatched: number | null;
  /** The cursor of the next page, or null on the last. */
  next: string | null;
}

/** The FeatureCollection of a page, with its links: `search` is the request's query string, kept in `self` and `next`. */
export function itemsText(page: ItemsPage, base: string, collectionId: string, search: string): string {
  const items = `${base}/collections/${encodeURIComponent(collectionId)}/items`;
  const params = new URLSearchParams(search);
  const links: Link[] = [
    { href: params.size ? `${items}?${params}` : items, rel: 'self', type: GEOJSON_TYPE, title: 'This page' },
    { href: `${base}/collections/${encodeURIComponent(collectionId)}`, rel: 'collection', type: JSON_TYPE },
  ];
  if (page.next !== null) {
    params.set('cursor', page.next);
    links.push({ href: `${items}?${params}`, rel: 'next', type: GEOJSON_TYPE, title: 'The next page' });
  }
  const meta = JSON.stringify({
    ...(page.numberMatched !== null && { numberMatched: page.numberMatched }),
    numberReturned: page.features.length,
    timeStamp: new Date().toISOString(),
    links,
  }).slice(1);
  return `{"type":"FeatureCollection","features":[${page.features.join(',')}],${meta}`;
}

/** One feature with its links (`/items/:featureId`). */
export function itemText(feature: string, base: string, collectionId: string, featureId: string): string {
  const collection = `${base}/collections/${encodeURIComponent(collectionId)}`;
  const links: Link[] = [
    { href: `${collection}/items/${encodeURIComponent(featureId)}`, rel: 'self', type: GEOJSON_TYPE },
    { href: collection, rel: 'collection', type: JSON_TYPE },
  ];
  return `${feature.slice(0, -1)},"links":${JSON.stringify(links)}}`;
}
