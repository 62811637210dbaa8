import type { RoomTable } from '../../db/room-table.js';
import type { DrawingsTable, RoomRow } from '../../db/tables.js';
import { invalidField, notFound, unlessDeletedMeanwhile } from '../../errors.js';
import type { LayerField } from '../../geo/feature-fields.js';
import { type AnyGeometry, growBbox, summarizeGeometry } from '../../geo/feature-summary.js';
import { bboxesTouch } from '../../geo/layer-answers.js';
import { featureText } from '../../geo/layer-rows.js';
import type { Bbox } from '../../geo/tile-math.js';
import type { FeatureTablesRepository } from '../layers/feature-tables.js';
import type { LayerRow, LayersRepository } from '../layers/layers.repository.js';
import type { MarkersRepository } from '../markers/markers.repository.js';
import {
  type DrawingCollection,
  DRAWING_COLLECTIONS,
  drawingCollection,
  drawingGeometry,
  drawingsOf,
} from './ogc-drawings.js';
import { ogcOpenApi } from './ogc-openapi.js';
import {
  bboxOf,
  cursorOf,
  cursorText,
  datetimeOf,
  pageSize,
  propertyFilters,
  refuseOtherParameters,
} from './ogc-query.js';
import {
  type CollectionInfo,
  collectionDocument,
  type DeclaredGeometry,
  collectionsDocument,
  DRAWING_PROPERTIES,
  drawingFeatureText,
  featureSchema,
  fieldSchemas,
  type ItemsPage,
  itemText,
  itemsText,
  landingPage,
  MARKER_PROPERTIES,
  markerFeatureText,
} from './ogc.presenter.js';
import type { ItemsQuery } from './ogc.schemas.js';

export interface OgcServiceParts {
  layers: LayersRepository;
  featureTables: FeatureTablesRepository;
  markers: MarkersRepository;
  drawings: RoomTable<'drawings'>;
  /** The most rows a filtered layer request reads (config `ogcScanRows`). */
  scanRows: number;
}

/** Where a request is: its room, and the room's endpoint as an absolute URL. */
export interface OgcRequest {
  room: RoomRow;
  base: string;
}

const MARKERS = 'markers';
const noTime = () =>
  invalidField('querystring.datetime', 'applies to markers only: this collection has no time (their eventDate)');

/**
 * OGC API – Features over a room's content: markers, drawings (all, and per kind of geometry:
 * ogc-drawings.ts) and each vector layer are collections. Layers page by row (keyset: a page deep in a million features costs what the
 * first does); a filtered request reads at most `scanRows` rows and may answer a short page
 * with a next link. Their `numberMatched` is the stored feature count, or, with a bbox alone, a
 * count of at most `scanRows` made on the first page and carried in the cursor; property filters
 * are not counted. Markers page by id in the database; drawings,
 * few and drawn by hand, in memory.
 */
export class OgcService {
  constructor(private readonly parts: OgcServiceParts) {}

  landing({ room, base }: OgcRequest) {
    return landingPage(base, room.name ?? room.id);
  }

  async api({ room, base }: OgcRequest) {
    const ids = (await this.infos(room.id)).map((info) => info.id);
    return ogcOpenApi(base, room.name ?? room.id, ids);
  }

  async collections({ room, base }: OgcRequest) {
    return collectionsDocument(await this.infos(room.id), base);
  }

  async collection({ room, base }: OgcRequest, collectionId: string) {
    return collectionDocument(await this.info(room.id, collectionId), base);
  }

  async schema({ room, base }: OgcRequest, collectionId: string) {
    return featureSchema(await this.info(room.id, collectionId), base);
  }

  async items({ room, base }: OgcRequest, collectionId: string, query: ItemsQuery, search: string): Promise<string> {
    const drawings = drawingCollection(collectionId);
    const page =
      collectionId === MARKERS
        ? await this.markerItems(room.id, query)
        : drawings
          ? await this.drawingItems(room.id, drawings, query)
          : await this.readTables(await this.layer(room.id, collectionId), (layer) => this.layerItems(layer, query));
    return itemsText(page, base, collectionId, search);
  }

  async item({ room, base }: OgcRequest, collectionId: string, featureId: string): Promise<string> {
    return itemText(await this.feature(room.id, collectionId, featureId), base, collectionId, featureId);
  }

  private async feature(roomId: string, collectionId: string, featureId: string): Promise<string> {
    if (collectionId === MARKERS) {
      const marker = await this.parts.markers.find(roomId, featureId);
      if (!marker) throw notFound('Feature');
      return markerFeatureText(marker);
    }
    const drawings = drawingCollection(collectionId);
    if (drawings) {
      const drawing = await this.parts.drawings.find(roomId, featureId);
      if (!drawing || drawingsOf(drawings, [drawing]).length === 0) throw notFound('Feature');
      return drawingFeatureText(drawing);
    }
    const layer = await this.layer(roomId, collectionId);
    const id = /^\d{1,15}$/.test(featureId) ? Number(featureId) : null;
    const row =
      id === null
        ? undefined
        : await this.readTables(layer, () => this.parts.featureTables.byId(layer.storage_key, id));
    if (!row) throw notFound('Feature');
    return featureText(row.id, row.geometry, row.properties);
  }

  /** The collections listed: markers, all drawings, the drawings of each kind the room has, each vector layer. */
  private async infos(roomId: string): Promise<CollectionInfo[]> {
    const layers = await this.parts.layers.listOfKind(roomId);
    const drawings = await this.parts.drawings.list(roomId);
    const [all, ...kinds] = DRAWING_COLLECTIONS.map((collection) => drawingsInfo(collection, drawings));
    return [
      await this.markersInfo(roomId),
      all!,
      ...kinds.filter((info) => info.bbox !== null),
      ...layers.filter((row) => row.storage_key !== null).map(layerInfo),
    ];
  }

  private async info(roomId: string, collectionId: string): Promise<CollectionInfo> {
    if (collectionId === MARKERS) return this.markersInfo(roomId);
    const drawings = drawingCollection(collectionId);
    if (drawings) return drawingsInfo(drawings, await this.parts.drawings.list(roomId));
    return layerInfo(await this.layer(roomId, collectionId));
  }

  private async layer(roomId: string, collectionId: string): Promise<LayerRow & { storage_key: number }> {
    const row = await this.parts.layers.findVector(roomId, collectionId);
    if (!row) throw notFound('Collection');
    return row;
  }

  /** A read of a layer's own tables: one that fails once the layer is gone was overtaken by its deletion (404). */
  private readTables<L extends LayerRow, T>(layer: L, read: (layer: L) => Promise<T>): Promise<T> {
    const exists = async () => (await this.parts.layers.roomOf(layer.id)) !== undefined;
    return unlessDeletedMeanwhile('Collection', exists, () => read(layer));
  }

  private async markersInfo(roomId: string): Promise<CollectionInfo> {
    const extent = await this.parts.markers.extent(roomId);
    return {
      id: MARKERS,
      title: 'Markers',
      description: "The room's markers (points); datetime filters on their eventDate",
      bbox: extent.bbox,
      interval: extent.eventDates,
      properties: MARKER_PROPERTIES,
      idType: 'string',
      geometry: { type: 'Point', multi: false },
    };
  }

  private async markerItems(roomId: string, query: ItemsQuery): Promise<ItemsPage> {
    refuseOtherParameters(query);
    const filter = { bbox: bboxOf(query), eventDate: datetimeOf(query) };
    const cursor = cursorOf(query, 'id');
    const limit = pageSize(query);
    const matched = cursor?.matched ?? (await this.parts.markers.countWhere(roomId, filter));
    const rows = await this.parts.markers.page(roomId, filter, (cursor?.after as string) ?? null, limit + 1);
    const shown = rows.slice(0, limit);
    return {
      features: shown.map(markerFeatureText),
      numberMatched: matched,
      next: rows.length > limit ? cursorText({ after: shown.at(-1)!.id, matched }) : null,
    };
  }

  private async drawingItems(roomId: string, collection: DrawingCollection, query: ItemsQuery): Promise<ItemsPage> {
    refuseOtherParameters(query);
    if (query.datetime !== undefined) throw noTime();
    const bbox = bboxOf(query);
    const cursor = cursorOf(query, 'id');
    const limit = pageSize(query);
    const matching = drawingsOf(collection, await this.parts.drawings.list(roomId))
      .filter((row) => {
        if (!bbox) return true;
        const summary = summarizeGeometry(JSON.parse(row.geometry) as AnyGeometry);
        return summary !== null && bboxesTouch(summary.bbox, bbox);
      })
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const rest = cursor ? matching.filter((row) => row.id > (cursor.after as string)) : matching;
    const shown = rest.slice(0, limit);
    return {
      features: shown.map(drawingFeatureText),
      numberMatched: matching.length,
      next: rest.length > limit ? cursorText({ after: shown.at(-1)!.id, matched: matching.length }) : null,
    };
  }

  private async layerItems(layer: LayerRow & { storage_key: number }, query: ItemsQuery): Promise<ItemsPage> {
    if (query.datetime !== undefined) throw noTime();
    const equals = propertyFilters(query, fieldsOf(layer));
    const asked = bboxOf(query);
    const layerBbox = layer.bbox === null ? null : (JSON.parse(layer.bbox) as Bbox);
    // A bbox holding the whole layer filters nothing: the stored count and the plain walk serve it.
    const bbox = asked && !(layerBbox && contains(asked, layerBbox)) ? asked : undefined;
    const filter = { ...(bbox && { bbox }), ...(equals.length && { equals }) };
    const cursor = cursorOf(query, 'row');
    const limit = pageSize(query);
    const { featureTables, scanRows } = this.parts;
    const key = layer.storage_key;
    const matched = cursor
      ? cursor.matched
      : equals.length > 0
        ? null
        : bbox
          ? await featureTables.countInBbox(key, bbox, scanRows)
          : Number(layer.feature_count);
    if (matched === 0) return { features: [], numberMatched: 0, next: null };
    // Filtered, a request reads at most scanRows rows: those of the chunks touching the bbox, or all.
    const rowRanges = bbox
      ? (await this.parts.layers.chunks(layer))
          .filter((c) => bboxesTouch([c.min_lon, c.min_lat, c.max_lon, c.max_lat], bbox))
          .map((c): [number, number] => [Number(c.first_row), Number(c.last_row)])
      : equals.length > 0
        ? [[1, Number(layer.last_row)] as [number, number]]
        : undefined;
    const { rows, stoppedAfter } = await featureTables.page(key, {
      ...filter,
      afterRow: (cursor?.after as number) ?? 0,
      limit: limit + 1,
      // GDAL's OAPIF driver (3.6) takes an empty page for the end; it sends bboxes, never property filters.
      ...(rowRanges && { rowRanges, scanRows, neverEmpty: equals.length === 0 }),
    });
    const shown = rows.slice(0, limit);
    const after = rows.length > limit ? shown.at(-1)!.row : stoppedAfter;
    return {
      features: shown.map((row) => featureText(row.id, row.geometry, row.properties)),
      numberMatched: matched,
      next: after === null ? null : cursorText({ after, matched }),
    };
  }
}

const fieldsOf = (layer: LayerRow): LayerField[] => (layer.fields ? (JSON.parse(layer.fields) as LayerField[]) : []);

const contains = (outer: Bbox, inner: Bbox) =>
  outer[0] <= inner[0] && outer[1] <= inner[1] && outer[2] >= inner[2] && outer[3] >= inner[3];

/** A drawings collection, its bbox that of its drawings (null: it has none). */
function drawingsInfo(collection: DrawingCollection, rows: DrawingsTable[]): CollectionInfo {
  let bbox: Bbox | null = null;
  for (const { geometry } of drawingsOf(collection, rows)) {
    const summary = summarizeGeometry(JSON.parse(geometry) as AnyGeometry);
    if (summary) bbox = bbox ? growBbox(bbox, summary.bbox) : [...summary.bbox];
  }
  return {
    id: collection.id,
    title: collection.title,
    description: collection.description,
    bbox,
    interval: null,
    properties: DRAWING_PROPERTIES,
    idType: 'string',
    geometry: drawingGeometry(collection),
  };
}

/** The geometry a layer declares: its type and the multi-part form (a layer may hold both), or any (`Mixed`, empty). */
const layerGeometry = (layer: LayerRow): DeclaredGeometry =>
  layer.geometry_type === 'Point' || layer.geometry_type === 'LineString' || layer.geometry_type === 'Polygon'
    ? { type: layer.geometry_type, multi: true }
    : null;

function layerInfo(layer: LayerRow): CollectionInfo {
  return {
    id: layer.id,
    title: layer.name,
    ...(layer.description && { description: layer.description }),
    bbox: layer.bbox === null ? null : (JSON.parse(layer.bbox) as Bbox),
    interval: null,
    properties: fieldSchemas(fieldsOf(layer)),
    idType: 'integer',
    geometry: layerGeometry(layer),
  };
}
