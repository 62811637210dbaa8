import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { actorOf, type Caller } from '../../auth/access.js';
import type { RoomRow } from '../../db/tables.js';
import { badRequest, emptyUpdate, invalidField, notFound, unlessDeletedMeanwhile } from '../../errors.js';
import {
  bboxesTouch,
  chunkManifestText,
  featureCollectionText,
  featuresSurelyInside,
  MAX_FEATURES_PER_ANSWER,
} from '../../geo/layer-answers.js';
import type { ChunkSummary } from '../../geo/layer-rows.js';
import { isValidTile, tileBbox, type Bbox } from '../../geo/tile-math.js';
import { encodeTile, TILE_BUFFER_FRACTION, TILE_ENCODING } from '../../geo/tiles.js';
import { newId } from '../../ids.js';
import { blobKeys } from '../files/blob-keys.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { WritePath } from '../history/write-path.js';
import type { Ingest } from '../ingest/ingest.js';
import type { FeatureEditsRepository } from './feature-edits.repository.js';
import type { FeatureTablesRepository } from './feature-tables.js';
import { assertDistinct, checkedField } from './layer-fields.service.js';
import { storageKey } from './layer-ingest.js';
import type { LayerIngest } from './layer-ingest.js';
import { type LayerRow, type LayersRepository, NO_SOURCE } from './layers.repository.js';
import { presentVectorLayer, styleOf } from './layers.presenter.js';
import { type CreateLayerInput, DEFAULT_STYLE, type FeaturesQuery, type PatchLayerInput } from './layers.schemas.js';

export interface LayersServiceOptions {
  layers: LayersRepository;
  featureTables: FeatureTablesRepository;
  /** The ingest, and its step for vector files: an inline layer is ingested like an upload. */
  ingest: Ingest;
  vectorIngest: LayerIngest;
  files: StoredFiles;
  writePath: WritePath;
  /** Makes an empty layer's tables. */
  edits: FeatureEditsRepository;
  tmpDir: string;
}

/**
 * Vector layers: lists, the inline creation, changes and deletion through the write path,
 * and the reads of their features: a bbox from the spatial index (or the chunk manifest when
 * more than 10,000 features would answer), chunks, and vector tiles.
 */
export class LayersService {
  private readonly layers: LayersRepository;
  private readonly featureTables: FeatureTablesRepository;

  constructor(private readonly options: LayersServiceOptions) {
    this.layers = options.layers;
    this.featureTables = options.featureTables;
  }

  async list(roomId: string) {
    return { layers: (await this.layers.listOfKind(roomId)).map(presentVectorLayer) };
  }

  /**
   * A layer from GeoJSON sent in the body: read by GDAL like an uploaded file, so the same
   * checks apply. Without GeoJSON, an empty layer of a geometry type with fields.
   */
  async create(room: RoomRow, caller: Caller, input: CreateLayerInput) {
    if (!input.geojson) return { success: true, layer: await this.createEmpty(room, caller, input) };
    for (const key of ['fields', 'geometryType'] as const)
      if (input[key] !== undefined)
        throw invalidField(`body.${key}`, 'is only for an empty layer (sent without geojson)');
    // Refused before the ingest: an empty collection would otherwise be published as an empty layer.
    if (input.geojson.features.length === 0) throw invalidField('body.geojson', 'holds no features');
    const { ingest, vectorIngest, files, tmpDir } = this.options;
    const id = newId('inline');
    const file = path.join(tmpDir, `${id}.geojson`);
    // The temporary folder is emptied (and removed) at start; uploads make it when they need it.
    await mkdir(tmpDir, { recursive: true });
    await writeFile(file, JSON.stringify(input.geojson));
    try {
      await files.assertRoomFor(room.id, Buffer.byteLength(JSON.stringify(input.geojson)));
      const style = styleKeysOf(input);
      const meta = { layerName: input.name, description: input.description ?? null, style, inline: true };
      const opened = await ingest.check(vectorIngest, { path: file, fileName: 'layer.geojson' }, meta);
      const target = { roomId: room.id, actor: actorOf(caller), stageId: id };
      const { layers } = await ingest.run(vectorIngest, target, opened, meta);
      if (!layers[0]) throw badRequest('geojson holds no features');
      return { success: true, layer: presentVectorLayer(layers[0]) };
    } finally {
      await rm(file, { force: true });
    }
  }

  /** An empty vector layer: its row and its tables, made in one write (a `layer.created` change). */
  private async createEmpty(room: RoomRow, caller: Caller, input: CreateLayerInput) {
    if (!input.geometryType)
      throw badRequest('Send geojson, or a geometryType (and fields) for an empty layer', [
        { field: 'body.geojson', message: 'is needed unless the layer is made empty' },
        { field: 'body.geometryType', message: 'is needed for a layer without geojson' },
      ]);
    const fields = (input.fields ?? []).map((field, i) => checkedField(field, `body.fields[${i}]`));
    assertDistinct(fields, (i) => `body.fields[${i}].name`);
    const actor = actorOf(caller);
    return this.options.writePath.write(room.id, actor, async (trx) => {
      const now = Date.now();
      const row: LayerRow = {
        id: newId('layer'),
        room_id: room.id,
        kind: 'vector',
        storage_key: storageKey(),
        name: input.name,
        description: input.description ?? null,
        style: JSON.stringify({ ...DEFAULT_STYLE, ...styleKeysOf(input) }),
        display: null,
        geometry_type: input.geometryType!,
        feature_count: 0,
        last_row: 0,
        bbox: null,
        source_format: 'inline',
        source_crs: 'EPSG:4326',
        size_bytes: 0,
        raster: null,
        file_key: null,
        job_id: null,
        fields: JSON.stringify(fields),
        ...NO_SOURCE,
        created_by: actor.id,
        created_at: now,
        updated_at: now,
      };
      await this.layers.insert(trx, [row]);
      await this.options.edits.createTables(trx, row.storage_key!);
      const layer = presentVectorLayer(row);
      return {
        result: layer,
        changes: [{ type: 'layer.created', objectType: 'layer', objectId: row.id, data: layer }],
      };
    });
  }

  async update(room: RoomRow, caller: Caller, layerId: string, input: PatchLayerInput) {
    if (Object.keys(input).length === 0) throw emptyUpdate();
    const layer = await this.options.writePath.write(room.id, actorOf(caller), async (trx) => {
      // Locked first: an edit of its features changes the row too (its count, last row, fields).
      const previous = await this.layers.touchVector(trx, room.id, layerId);
      if (!previous) throw notFound('Layer');
      if (input.refreshMinutes !== undefined && !previous.source_url)
        throw invalidField('body.refreshMinutes', 'is only for a layer read from an address');
      const row: LayerRow = {
        ...previous,
        ...(input.name !== undefined && { name: input.name }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.style !== undefined && { style: JSON.stringify({ ...styleOf(previous), ...input.style }) }),
        ...(input.refreshMinutes !== undefined && { refresh_minutes: input.refreshMinutes }),
        updated_at: Date.now(),
      };
      await this.layers.replace(trx, row);
      const layer = presentVectorLayer(row);
      return {
        result: layer,
        changes: [{ type: 'layer.updated', objectType: 'layer', objectId: layerId, changes: input, data: layer }],
      };
    });
    return { success: true, layer };
  }

  /** Removes a vector or raster layer with all its data (its tables, its files). */
  async delete(room: RoomRow, caller: Caller, layerId: string) {
    const removed = await this.options.writePath.write(room.id, actorOf(caller), async (trx) => {
      const row = await this.layers.find(room.id, layerId, trx);
      if (!row) throw notFound('Layer');
      await this.layers.deleteRow(trx, row.id);
      if (row.storage_key !== null) await this.featureTables.drop(trx, Number(row.storage_key));
      const change =
        row.kind === 'raster'
          ? ({ type: 'rasterLayer.deleted', objectType: 'rasterLayer' } as const)
          : ({ type: 'layer.deleted', objectType: 'layer' } as const);
      return { result: row, changes: [{ ...change, objectId: layerId, data: null }] };
    });
    await this.options.files.removeUnder(room.id, blobKeys.layerFolder(room.id, removed.id));
    return { success: true, layerId };
  }

  /** A vector layer of the room, or 404. */
  private async vector(roomId: string, layerId: string): Promise<LayerRow & { storage_key: number }> {
    const row = await this.layers.findVector(roomId, layerId);
    if (!row) throw notFound('Layer');
    return row;
  }

  /** A read of the layer's chunks and own tables: one that fails once the layer is gone was overtaken by its deletion (404). */
  private readTables<T>(layerId: string, read: () => Promise<T>): Promise<T> {
    return unlessDeletedMeanwhile('Layer', async () => (await this.layers.roomOf(layerId)) !== undefined, read);
  }

  private async chunksOf(layer: LayerRow): Promise<ChunkSummary[]> {
    return (await this.layers.chunks(layer)).map((c) => ({
      index: c.chunk_index,
      firstRow: Number(c.first_row),
      lastRow: Number(c.last_row),
      featureCount: c.feature_count,
      bbox: [c.min_lon, c.min_lat, c.max_lon, c.max_lat],
    }));
  }

  /** `GET /features`: the FeatureCollection text (complete), or the chunk manifest over 10,000 features. */
  async features(roomId: string, layerId: string, query: FeaturesQuery): Promise<string> {
    const layer = await this.vector(roomId, layerId);
    return this.readTables(layerId, () => this.featuresText(layer, query));
  }

  /** The answer of `features`, from the layer's chunks and tables. */
  private async featuresText(layer: LayerRow & { storage_key: number }, query: FeaturesQuery): Promise<string> {
    const chunks = await this.chunksOf(layer);
    const pathOf = (index: number) => `/api/layers/${layer.id}/features/chunks/${index}`;
    const manifest = (listed: ChunkSummary[]) =>
      chunkManifestText(
        listed,
        listed.reduce((n, c) => n + c.featureCount, 0),
        pathOf,
      );
    const bbox = bboxOf(query);
    if (!bbox) {
      if (layer.feature_count > MAX_FEATURES_PER_ANSWER) return manifest(chunks);
      return featureCollectionText(
        await this.featureTables.featuresBetween(layer.storage_key, 1, Number(layer.last_row)),
        query.zoom,
      );
    }
    const touching = chunks.filter((c) => bboxesTouch(c.bbox, bbox));
    if (featuresSurelyInside(touching, bbox) > MAX_FEATURES_PER_ANSWER) return manifest(touching);
    const rows = await this.featureTables.rowsIn(layer.storage_key, bbox, MAX_FEATURES_PER_ANSWER + 1);
    if (rows.length > MAX_FEATURES_PER_ANSWER) return manifest(touching);
    return featureCollectionText(
      await this.featureTables.features(
        layer.storage_key,
        rows.sort((a, b) => a - b),
      ),
      query.zoom,
    );
  }

  /** One chunk of a large layer, as a complete FeatureCollection. */
  async chunk(roomId: string, layerId: string, index: number): Promise<string> {
    const layer = await this.vector(roomId, layerId);
    return this.readTables(layerId, async () => {
      const chunk = (await this.chunksOf(layer)).find((c) => c.index === index);
      if (!chunk) throw notFound('Chunk');
      const rows = await this.featureTables.featuresBetween(layer.storage_key, chunk.firstRow, chunk.lastRow);
      return featureCollectionText(rows, undefined, { chunkIndex: index, bbox: chunk.bbox });
    });
  }

  /**
   * The vector tile z/x/y (null: nothing in it), with the version its ETag names; `unchanged`
   * when `cached` says the caller has this version already (not encoded then). 400 for a tile
   * outside the grid, whatever the caller has.
   */
  async tile(
    roomId: string,
    layerId: string,
    { z, x, y }: { z: number; x: number; y: number },
    cached: (version: string) => boolean = () => false,
  ): Promise<{ unchanged: true } | { unchanged: false; tile: Uint8Array | null; version: string }> {
    if (!isValidTile(z, x, y)) throw badRequest(`There is no tile ${z}/${x}/${y}: x and y must be below 2^z`);
    const layer = await this.vector(roomId, layerId);
    // It changes when the layer does, and with the tiles' encoding.
    const version = `${layer.storage_key}-${layer.updated_at}-${TILE_ENCODING}`;
    if (cached(version)) return { unchanged: true };
    const found = await this.readTables(layerId, () =>
      this.featureTables.tileFeatures(layer.storage_key, tileBbox(z, x, y, TILE_BUFFER_FRACTION), z),
    );
    return { unchanged: false, tile: encodeTile(found, z, x, y), version };
  }
}

/** The style keys a layer's creation may give. */
const styleKeysOf = (input: CreateLayerInput) =>
  Object.fromEntries(
    ['color', 'opacity', 'strokeWeight', 'visible']
      .filter((k) => k in input)
      .map((k) => [k, input[k as keyof CreateLayerInput]]),
  );

/** The query's bbox, or null when none is given; all four or none, min below max. */
function bboxOf(query: FeaturesQuery): Bbox | null {
  const values = [query.minLon, query.minLat, query.maxLon, query.maxLat];
  const given = values.filter((v) => v !== undefined).length;
  if (given === 0) return null;
  if (given < 4)
    throw badRequest('The bbox needs all of minLon, minLat, maxLon and maxLat', [
      { field: 'querystring', message: 'give all four or none' },
    ]);
  const [minLon, minLat, maxLon, maxLat] = values as number[];
  if (minLon! > maxLon!)
    throw badRequest('minLon must not be greater than maxLon', [
      { field: 'querystring.minLon', message: 'greater than maxLon' },
    ]);
  if (minLat! > maxLat!)
    throw badRequest('minLat must not be greater than maxLat', [
      { field: 'querystring.minLat', message: 'greater than maxLat' },
    ]);
  return [minLon!, minLat!, maxLon!, maxLat!];
}
