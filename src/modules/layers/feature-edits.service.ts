import { type Actor, actorOf, type Caller } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { RoomRow } from '../../db/tables.js';
import { emptyUpdate, invalidField, notFound, notRestorable, versionConflict } from '../../errors.js';
import { type AnyGeometry, growBbox, layerGeometryType, summarizeGeometry } from '../../geo/feature-summary.js';
import { propertiesProblem, withDefaults } from '../../geo/feature-values.js';
import { featureGeometryProblem } from '../../geo/geometry.js';
import { detailZoom } from '../../geo/simplify.js';
import type { Bbox } from '../../geo/tile-math.js';
import type { HistoryRepository } from '../history/history.repository.js';
import type { KeptState, Restorable } from '../history/restorable.js';
import type { Change, WritePath } from '../history/write-path.js';
import type { ActorNames } from '../users/actor-names.js';
import type { EditedRow, FeatureEditsRepository, FeatureParts } from './feature-edits.repository.js';
import {
  type CreateFeatureInput,
  type EditedFeature,
  type FeatureChange,
  featureObjectId,
  type PatchFeatureInput,
} from './feature-edits.schemas.js';
import type { LayerRow, LayersRepository } from './layers.repository.js';
import { fieldsOf } from './layers.presenter.js';

export interface FeatureEditsParts {
  layers: LayersRepository;
  edits: FeatureEditsRepository;
  history: HistoryRepository;
  writePath: WritePath;
  /** For reads outside a write (a feature's version). */
  db: Db;
  names: ActorNames;
}

type VectorRow = LayerRow & { storage_key: number };

/**
 * Creating, changing and deleting the features of a vector layer, each through the write path:
 * one history entry per feature, live to the room, and the layer's `updatedAt` advanced so that
 * its tiles' ETags change on every instance. Each feature has a version (1 as ingested or
 * created); a change based on another is refused with who made the newer one. Properties are
 * checked against the layer's fields.
 */
export class FeatureEdits {
  constructor(private readonly parts: FeatureEditsParts) {}

  async create(room: RoomRow, caller: Caller, layerId: string, input: CreateFeatureInput): Promise<EditedFeature> {
    const actor = actorOf(caller);
    return this.parts.writePath.write(room.id, actor, async (trx) => {
      const layer = await this.layer(trx, room.id, layerId);
      const properties = withDefaults(fieldsOf(layer), input.properties ?? {});
      const parts = checkedParts(layer, input.geometry, properties, properties, { creating: true });
      const id = await this.parts.edits.nextId(trx, layer.id, layer.storage_key);
      await this.append(trx, layer, id, parts);
      const feature = present(id, 1, input.geometry, properties);
      return { result: feature, changes: [featureChange('created', layer.id, feature)] };
    });
  }

  /** The version of a feature the caller has just read (1 until first edited). */
  versionOf(layerId: string, featureId: number): Promise<number> {
    return this.parts.edits.version(this.parts.db, layerId, featureId);
  }

  /**
   * Changes a feature: `replace` (OGC API's PUT) puts the properties sent in place of all of
   * them, and needs every required field as a new feature does; otherwise those sent replace
   * theirs (null removes one) and the others stay.
   */
  async update(
    room: RoomRow,
    caller: Caller,
    layerId: string,
    featureId: number,
    input: PatchFeatureInput,
    { replace = false } = {},
  ): Promise<EditedFeature> {
    if (input.geometry === undefined && input.properties === undefined) throw emptyUpdate();
    const actor = actorOf(caller);
    const write = this.parts.writePath.write(room.id, actor, async (trx) => {
      const layer = await this.layer(trx, room.id, layerId);
      const { edits } = this.parts;
      const found = await this.feature(trx, layer, featureId);
      const version = await this.nextVersion(trx, room.id, layer.id, featureId, input.ifVersion);
      const kept = replace ? {} : (JSON.parse(found.properties) as Record<string, unknown>);
      const properties = { ...kept, ...input.properties };
      for (const [name, value] of Object.entries(input.properties ?? {})) if (value === null) delete properties[name];
      const geometry = input.geometry ?? (JSON.parse(found.geometry) as unknown);
      const parts = checkedParts(layer, geometry, input.properties ?? {}, properties, { creating: replace });
      await this.rewrite(trx, layer, found.row, parts, { moved: input.geometry !== undefined });
      await edits.setVersion(trx, layer.id, featureId, version);
      const feature = present(featureId, version, geometry, properties);
      const changes = {
        ...(input.properties && { properties: input.properties }),
        ...(input.geometry !== undefined && { geometry: true }),
      };
      return { result: feature, changes: [{ ...featureChange('updated', layer.id, feature), changes }] };
    });
    return this.versioned(write);
  }

  async delete(room: RoomRow, caller: Caller, layerId: string, featureId: number, ifVersion?: number): Promise<void> {
    const actor = actorOf(caller);
    const write = this.parts.writePath.write(room.id, actor, async (trx) => {
      const layer = await this.layer(trx, room.id, layerId);
      const { edits } = this.parts;
      const found = await this.feature(trx, layer, featureId);
      const version = await this.nextVersion(trx, room.id, layer.id, featureId, ifVersion);
      await edits.remove(trx, layer.storage_key, found.row);
      await edits.changeInChunk(trx, layer.id, found.row, { removed: true });
      await this.parts.layers.update(trx, layer.id, { feature_count: Number(layer.feature_count) - 1 });
      // Kept: a feature restored later goes on from this version, and its id is not given again.
      await edits.setVersion(trx, layer.id, featureId, version);
      // The deletion keeps the feature as it was: one as ingested has no earlier entry to restore.
      const gone = present(featureId, version - 1, JSON.parse(found.geometry), JSON.parse(found.properties));
      return { result: undefined, changes: [featureChange('deleted', layer.id, gone)] };
    });
    await this.versioned(write);
  }

  /** Features come back from history as a kept state had them: changed again, or created again with their id. */
  restorable(): Restorable {
    return {
      objectType: 'feature',
      deletionKeepsState: true,
      restore: async (trx, roomId, kept) => {
        const state = kept as KeptState & FeatureChange;
        const layer = await this.parts.layers.touchVector(trx, roomId, state.layerId);
        if (!layer) throw notRestorable(`The layer ${state.layerId} was deleted with its features`);
        const { edits } = this.parts;
        const { id, geometry, properties } = state.feature;
        const parts = checkedParts(layer, geometry, {}, properties);
        const found = await edits.find(trx, layer.storage_key, id);
        const version = (await edits.version(trx, layer.id, id)) + 1;
        if (found) await this.rewrite(trx, layer, found.row, parts, { moved: true });
        else await this.append(trx, layer, id, parts);
        await edits.setVersion(trx, layer.id, id, version);
        const feature = present(id, version, geometry, properties);
        return { change: featureChange(found ? 'updated' : 'created', layer.id, feature) };
      },
    };
  }

  /** Stores a new feature in the row after the layer's last, and counts it in the layer. */
  private async append(trx: Db, layer: VectorRow, id: number, parts: CheckedParts): Promise<void> {
    const row = Number(layer.last_row) + 1;
    await this.parts.edits.insert(trx, layer.storage_key, row, id, parts.stored);
    await this.parts.edits.addToChunks(trx, layer.id, row, parts.stored.bbox);
    await this.parts.layers.update(trx, layer.id, {
      ...grownLayer(layer, parts),
      feature_count: Number(layer.feature_count) + 1,
      last_row: row,
    });
  }

  /** Stores a feature's new parts in its row; `moved`: its geometry changed, so its chunk and layer grow to hold it. */
  private async rewrite(trx: Db, layer: VectorRow, row: number, parts: CheckedParts, { moved }: { moved: boolean }) {
    await this.parts.edits.replace(trx, layer.storage_key, row, parts.stored);
    if (!moved) return;
    await this.parts.edits.changeInChunk(trx, layer.id, row, { bbox: parts.stored.bbox });
    await this.parts.layers.update(trx, layer.id, grownLayer(layer, parts));
  }

  /** The layer, locked for this edit, or 404. */
  private async layer(trx: Db, roomId: string, layerId: string): Promise<VectorRow> {
    const layer = await this.parts.layers.touchVector(trx, roomId, layerId);
    if (!layer) throw notFound('Layer');
    return layer;
  }

  private async feature(trx: Db, layer: VectorRow, featureId: number): Promise<EditedRow> {
    const found = await this.parts.edits.find(trx, layer.storage_key, featureId);
    if (!found) throw notFound('Feature');
    return found;
  }

  /** The version after the feature's, once `ifVersion` (when given) is the feature's (else StaleVersion). */
  private async nextVersion(trx: Db, roomId: string, layerId: string, featureId: number, ifVersion?: number) {
    const version = await this.parts.edits.version(trx, layerId, featureId);
    if (ifVersion !== undefined && ifVersion !== version) {
      const by = await this.parts.history.lastActor(trx, roomId, 'feature', featureObjectId(layerId, featureId));
      throw new StaleVersion(featureId, ifVersion, version, by);
    }
    return version + 1;
  }

  /** A write that may be refused for a stale version: 409 naming who made the newer one (read once the write's transaction is over). */
  private async versioned<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } catch (error) {
      if (!(error instanceof StaleVersion)) throw error;
      const name = error.by ? await this.parts.names.one(error.by) : "the layer's upload";
      throw versionConflict(`Feature ${error.featureId}`, error.asked, error.version, name);
    }
  }
}

/** A change based on version `asked` of a feature at `version`, which `by` made (none: as ingested). */
class StaleVersion extends Error {
  constructor(
    readonly featureId: number,
    readonly asked: number,
    readonly version: number,
    readonly by: Actor | undefined,
  ) {
    super(`Feature ${featureId} is at version ${version}, not ${asked}`);
  }
}

/** A feature's checked parts: what is stored, and the kinds of geometry it holds. */
interface CheckedParts {
  stored: FeatureParts;
  kinds: number;
}

/**
 * The stored parts of a feature with `geometry` and `properties`, once the geometry is valid
 * and of the layer's geometry type (a `Mixed` layer takes any), and `given` (the properties the caller sent) are values of the layer's fields (else 400 naming
 * the field).
 */
function checkedParts(
  layer: LayerRow,
  geometry: unknown,
  given: Record<string, unknown>,
  properties: Record<string, unknown> = given,
  { creating = false } = {},
): CheckedParts {
  const geometryProblem = featureGeometryProblem(geometry);
  if (geometryProblem) throw invalidField('body.geometry', geometryProblem.replace(/^geometry\.?\s*/, ''));
  const problem = propertiesProblem(fieldsOf(layer), given, { creating });
  if (problem) throw invalidField(`body.properties.${problem.name}`, problem.problem);
  const summary = summarizeGeometry(geometry as AnyGeometry)!;
  const held = KINDS[layer.geometry_type ?? ''];
  if (held !== undefined && held !== KINDS.Mixed && summary.kinds !== held)
    throw invalidField(
      'body.geometry',
      `must be a ${layer.geometry_type} or its multi-part form: the layer holds no other`,
    );
  return {
    stored: {
      bbox: summary.bbox,
      detailZoom: detailZoom(geometry as AnyGeometry),
      geometry: JSON.stringify(geometry),
      properties: JSON.stringify(properties),
    },
    kinds: summary.kinds,
  };
}

const KINDS: Record<string, number> = { Point: 1, LineString: 2, Polygon: 4, Mixed: 7 };

/** The layer's bbox grown to hold a feature's, and its geometry type once it has one (an empty layer's first feature). */
function grownLayer(layer: LayerRow, parts: CheckedParts): Pick<LayerRow, 'bbox' | 'geometry_type'> {
  const bbox = layer.bbox ? growBbox(JSON.parse(layer.bbox) as Bbox, parts.stored.bbox) : parts.stored.bbox;
  return { bbox: JSON.stringify(bbox), geometry_type: layer.geometry_type ?? layerGeometryType(parts.kinds) };
}

const present = (
  id: number,
  version: number,
  geometry: unknown,
  properties: Record<string, unknown>,
): EditedFeature => ({
  type: 'Feature',
  id,
  version,
  geometry,
  properties,
});

/** What a feature is called in history: its name, title or label, else its number. */
function featureName(feature: EditedFeature): string {
  for (const key of ['name', 'title', 'label']) {
    const value = feature.properties[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return `Feature ${feature.id}`;
}

const CHANGE_TYPES = { created: 'feature.created', updated: 'feature.updated', deleted: 'feature.deleted' } as const;

function featureChange(kind: keyof typeof CHANGE_TYPES, layerId: string, feature: EditedFeature): Change {
  const data: FeatureChange = {
    id: featureObjectId(layerId, feature.id),
    layerId,
    name: featureName(feature),
    feature,
  };
  return { type: CHANGE_TYPES[kind], objectType: 'feature', objectId: data.id, data };
}
