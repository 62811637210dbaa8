import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { featureIdsExhausted } from '../../errors.js';
import type { Dialect } from '../../db/migrations/index.js';
import type { LayerChunksTable } from '../../db/tables.js';
import { CHUNK_SIZE } from '../../geo/layer-rows.js';
import { jsonPathOf } from './json-path.js';
import type { Bbox } from '../../geo/tile-math.js';
import { featureIndexesDdl, featuresTable, featureTablesDdl, indexTable } from './feature-writers.js';

/** A feature's stored row as an edit reads it (geometry and properties as JSON texts). */
export interface EditedRow {
  row: number;
  id: number;
  geometry: string;
  properties: string;
}

/** A feature's stored parts as an edit writes them. */
export interface FeatureParts {
  bbox: Bbox;
  detailZoom: number;
  geometry: string;
  properties: string;
}

/**
 * The queries of a feature edit, on a vector layer's own tables (feature-writers.ts makes
 * them), its chunks and the versions of its edited features. Each runs inside the write
 * path's transaction. A created feature takes the row after the layer's last and shows at
 * every zoom (minzoom 0); a changed one keeps its row, so its chunk's bbox grows to hold it.
 */
export class FeatureEditsRepository {
  constructor(private readonly dialect: Dialect) {}

  /** Makes an empty layer's tables, indexed. */
  async createTables(trx: Db, key: number): Promise<void> {
    for (const statement of [...featureTablesDdl(this.dialect, key), ...featureIndexesDdl(this.dialect, key)])
      await sql.raw(statement).execute(trx);
  }

  /** Renames a property in every feature that has it (its value kept, JSON types too). */
  async renameProperty(trx: Db, key: number, from: string, to: string): Promise<void> {
    const table = sql.table(featuresTable(key));
    if (this.dialect === 'sqlite') {
      const [old, next] = [jsonPathOf(from), jsonPathOf(to)];
      await sql`UPDATE ${table} SET properties = json_set(json_remove(properties, ${old}), ${next}, properties -> ${old})
        WHERE json_type(properties, ${old}) IS NOT NULL`.execute(trx);
      return;
    }
    await sql`UPDATE ${table} SET properties = ((properties::jsonb - ${from}) || jsonb_build_object(${to}::text, properties::jsonb -> ${from}))::text
      WHERE properties::jsonb ? ${from}`.execute(trx);
  }

  /** Removes a property from every feature. */
  async removeProperty(trx: Db, key: number, name: string): Promise<void> {
    const table = sql.table(featuresTable(key));
    if (this.dialect === 'sqlite') {
      const path = jsonPathOf(name);
      await sql`UPDATE ${table} SET properties = json_remove(properties, ${path})
        WHERE json_type(properties, ${path}) IS NOT NULL`.execute(trx);
      return;
    }
    await sql`UPDATE ${table} SET properties = (properties::jsonb - ${name})::text WHERE properties::jsonb ? ${name}`.execute(
      trx,
    );
  }

  /** The feature with this id, with its row. */
  async find(trx: Db, key: number, id: number): Promise<EditedRow | undefined> {
    const { rows } = await sql<EditedRow>`SELECT row, id, geometry, properties FROM ${sql.table(featuresTable(key))}
      WHERE id = ${id} LIMIT 1`.execute(trx);
    return rows[0] && { ...rows[0], row: Number(rows[0].row), id: Number(rows[0].id) };
  }

  /**
   * The id after the highest the layer has given (its ingest's ids are GDAL's FIDs, so not
   * 1..n): a deleted feature keeps its version row, so its id is never given again.
   */
  async nextId(trx: Db, layerId: string, key: number): Promise<number> {
    const { rows } = await sql<{ id: number | string | null }>`SELECT max(id) AS id FROM (
      SELECT max(id) AS id FROM ${sql.table(featuresTable(key))}
      UNION ALL SELECT max(feature_id) AS id FROM feature_versions WHERE layer_id = ${layerId}) ids`.execute(trx);
    const next = Number(rows[0]?.id ?? 0) + 1;
    // A file's FIDs near 2^53: no id after them can be named exactly.
    if (!Number.isSafeInteger(next)) throw featureIdsExhausted();
    return next;
  }

  async insert(trx: Db, key: number, row: number, id: number, parts: FeatureParts): Promise<void> {
    const [w, s, e, n] = parts.bbox;
    if (this.dialect === 'sqlite') {
      await sql`INSERT INTO ${sql.table(featuresTable(key))} (row, id, minzoom, detail_zoom, geometry, properties)
        VALUES (${row}, ${id}, 0, ${parts.detailZoom}, ${parts.geometry}, ${parts.properties})`.execute(trx);
      await sql`INSERT INTO ${sql.table(indexTable(key))} VALUES (${row}, ${w}, ${e}, ${s}, ${n}, 0, 0)`.execute(trx);
      return;
    }
    await sql`INSERT INTO ${sql.table(featuresTable(key))} (row, id, minzoom, detail_zoom, bbox, geometry, properties)
      VALUES (${row}, ${id}, 0, ${parts.detailZoom}, box(point(${e}, ${n}), point(${w}, ${s})), ${parts.geometry}, ${parts.properties})`.execute(
      trx,
    );
  }

  async replace(trx: Db, key: number, row: number, parts: FeatureParts): Promise<void> {
    const [w, s, e, n] = parts.bbox;
    const table = sql.table(featuresTable(key));
    if (this.dialect === 'sqlite') {
      await sql`UPDATE ${table} SET detail_zoom = ${parts.detailZoom}, geometry = ${parts.geometry},
        properties = ${parts.properties} WHERE row = ${row}`.execute(trx);
      await sql`UPDATE ${sql.table(indexTable(key))} SET min_lon = ${w}, max_lon = ${e}, min_lat = ${s}, max_lat = ${n}
        WHERE row = ${row}`.execute(trx);
      return;
    }
    await sql`UPDATE ${table} SET detail_zoom = ${parts.detailZoom}, bbox = box(point(${e}, ${n}), point(${w}, ${s})),
      geometry = ${parts.geometry}, properties = ${parts.properties} WHERE row = ${row}`.execute(trx);
  }

  async remove(trx: Db, key: number, row: number): Promise<void> {
    await sql`DELETE FROM ${sql.table(featuresTable(key))} WHERE row = ${row}`.execute(trx);
    if (this.dialect === 'sqlite') await sql`DELETE FROM ${sql.table(indexTable(key))} WHERE row = ${row}`.execute(trx);
  }

  /** Puts a new last row in the layer's last chunk, or in a chunk of its own when that one is full. */
  async addToChunks(trx: Db, layerId: string, row: number, bbox: Bbox): Promise<void> {
    const last = await trx
      .selectFrom('layer_chunks')
      .selectAll()
      .where('layer_id', '=', layerId)
      .orderBy('chunk_index', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!last || last.feature_count >= CHUNK_SIZE) {
      const [min_lon, min_lat, max_lon, max_lat] = bbox;
      await trx
        .insertInto('layer_chunks')
        .values({
          layer_id: layerId,
          chunk_index: last ? last.chunk_index + 1 : 0,
          first_row: row,
          last_row: row,
          feature_count: 1,
          min_lon,
          min_lat,
          max_lon,
          max_lat,
        })
        .execute();
      return;
    }
    await this.setChunk(trx, { ...grown(last, bbox), last_row: row, feature_count: last.feature_count + 1 });
  }

  /** Grows the bbox of the chunk holding `row` to hold `bbox` too (a changed geometry); `removed`: one feature fewer. */
  async changeInChunk(trx: Db, layerId: string, row: number, change: { bbox: Bbox } | { removed: true }) {
    const chunk = await trx
      .selectFrom('layer_chunks')
      .selectAll()
      .where('layer_id', '=', layerId)
      .where('first_row', '<=', row)
      .where('last_row', '>=', row)
      .executeTakeFirst();
    if (!chunk) throw new Error(`Row ${row} of layer ${layerId} is in no chunk`);
    await this.setChunk(
      trx,
      'bbox' in change ? grown(chunk, change.bbox) : { ...chunk, feature_count: chunk.feature_count - 1 },
    );
  }

  private async setChunk(trx: Db, chunk: LayerChunksTable): Promise<void> {
    const { layer_id, chunk_index, ...rest } = chunk;
    await trx
      .updateTable('layer_chunks')
      .set(rest)
      .where('layer_id', '=', layer_id)
      .where('chunk_index', '=', chunk_index)
      .execute();
  }

  /** The feature's version: 1 until it is first edited. */
  async version(trx: Db, layerId: string, featureId: number): Promise<number> {
    const row = await trx
      .selectFrom('feature_versions')
      .select('version')
      .where('layer_id', '=', layerId)
      .where('feature_id', '=', featureId)
      .executeTakeFirst();
    return row ? Number(row.version) : 1;
  }

  /** Advances the versions of these features by one (a refresh replaced them), a few hundred per statement. */
  async advanceVersions(trx: Db, layerId: string, featureIds: number[]): Promise<void> {
    const updated_at = Date.now();
    // One statement per 50,000 ids, given as one JSON array: a refresh may touch every feature.
    for (let i = 0; i < featureIds.length; i += 50_000) {
      const ids = JSON.stringify(featureIds.slice(i, i + 50_000));
      const each =
        this.dialect === 'sqlite'
          ? sql`SELECT ${layerId}, value, 2, ${updated_at} FROM json_each(${ids}) WHERE true`
          : sql`SELECT ${layerId}, value::bigint, 2, ${updated_at}::bigint FROM jsonb_array_elements_text(${ids}::jsonb)`;
      await sql`INSERT INTO feature_versions (layer_id, feature_id, version, updated_at) ${each}
        ON CONFLICT (layer_id, feature_id) DO UPDATE SET version = feature_versions.version + 1, updated_at = ${updated_at}`.execute(
        trx,
      );
    }
  }

  async setVersion(trx: Db, layerId: string, featureId: number, version: number): Promise<void> {
    const values = { version, updated_at: Date.now() };
    await trx
      .insertInto('feature_versions')
      .values({ layer_id: layerId, feature_id: featureId, ...values })
      .onConflict((oc) => oc.columns(['layer_id', 'feature_id']).doUpdateSet(values))
      .execute();
  }
}

/** A chunk grown to hold `bbox`. */
function grown(chunk: LayerChunksTable, [w, s, e, n]: Bbox): LayerChunksTable {
  return {
    ...chunk,
    min_lon: Math.min(chunk.min_lon, w),
    min_lat: Math.min(chunk.min_lat, s),
    max_lon: Math.max(chunk.max_lon, e),
    max_lat: Math.max(chunk.max_lat, n),
  };
}
