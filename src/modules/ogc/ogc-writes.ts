import type { Caller } from '../../auth/access.js';
import { AppError, notFound, preconditionFailed, readOnlyCollection } from '../../errors.js';
import type { EditedFeature } from '../layers/feature-edits.schemas.js';
import type { FeatureEdits } from '../layers/feature-edits.service.js';
import type { OgcRequest } from './ogc.service.js';
import { DRAWINGS, drawingCollection } from './ogc-drawings.js';

/** A layer feature's ETag: its version, strong (the item's bytes follow from it). */
export const featureEtag = (version: number) => `"${version}"`;

/**
 * The version an `If-Match` header asks for: undefined without one (or `*`, any version); a
 * value that names no version (a weak or malformed tag) asks for none the feature can have.
 */
export function versionOfIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*"(\d{1,15})"\s*$/.exec(header);
  return match ? Number(match[1]) : 0;
}

/** A feature written through OGC API, with where it lives now. */
export interface WrittenItem {
  feature: EditedFeature;
  location: string;
}

/** The collections written through their own routes (markers, drawings of every kind), by the resource they are. */
const resourceOf = (collectionId: string): string | null =>
  collectionId === 'markers' ? 'markers' : drawingCollection(collectionId) ? DRAWINGS : null;

/**
 * OGC API – Features Part 4 (create, replace, update, delete) on a room's layer collections:
 * each write is the feature routes' own (FeatureEdits: one write path, history, live, checks
 * against the fields), with optimistic locking by `If-Match`: a feature at another version is
 * 412 `precondition_failed` naming who changed it. Markers and drawings are written through
 * their own routes (405 here).
 */
export class OgcWrites {
  constructor(private readonly edits: FeatureEdits) {}

  async create(request: OgcRequest, caller: Caller, collectionId: string, body: ItemBody): Promise<WrittenItem> {
    writable(collectionId);
    const feature = await this.edits.create(request.room, caller, collectionId, {
      type: 'Feature',
      geometry: body.geometry,
      properties: body.properties ?? {},
    });
    return { feature, location: `${request.base}/collections/${collectionId}/items/${feature.id}` };
  }

  async replace(
    request: OgcRequest,
    caller: Caller,
    collectionId: string,
    featureId: string,
    body: ItemBody,
    ifMatch: string | undefined,
  ): Promise<EditedFeature> {
    const id = featureIdOf(collectionId, featureId);
    const input = { geometry: body.geometry, properties: body.properties ?? {}, ifVersion: versionOfIfMatch(ifMatch) };
    return preconditioned(this.edits.update(request.room, caller, collectionId, id, input, { replace: true }));
  }

  async update(
    request: OgcRequest,
    caller: Caller,
    collectionId: string,
    featureId: string,
    body: { geometry?: unknown; properties?: Record<string, unknown> },
    ifMatch: string | undefined,
  ): Promise<EditedFeature> {
    const id = featureIdOf(collectionId, featureId);
    const input = { ...body, ifVersion: versionOfIfMatch(ifMatch) };
    return preconditioned(this.edits.update(request.room, caller, collectionId, id, input));
  }

  async delete(
    request: OgcRequest,
    caller: Caller,
    collectionId: string,
    featureId: string,
    ifMatch: string | undefined,
  ): Promise<void> {
    const id = featureIdOf(collectionId, featureId);
    await preconditioned(this.edits.delete(request.room, caller, collectionId, id, versionOfIfMatch(ifMatch)));
  }

  /** The ETag of an item just read from the room (null for a marker or drawing: they have no version). */
  async etagOf(collectionId: string, featureId: string): Promise<string | null> {
    if (resourceOf(collectionId)) return null;
    const id = /^\d{1,15}$/.test(featureId) ? Number(featureId) : null;
    if (id === null) return null;
    return featureEtag(await this.edits.versionOf(collectionId, id));
  }
}

/** A feature as Part 4 sends it: GeoJSON, other members (an id, a bbox) ignored. */
export interface ItemBody {
  type: 'Feature';
  geometry: unknown;
  properties?: Record<string, unknown> | null;
}

function writable(collectionId: string) {
  const resource = resourceOf(collectionId);
  if (resource) throw readOnlyCollection(collectionId, resource);
}

function featureIdOf(collectionId: string, featureId: string): number {
  writable(collectionId);
  if (!/^\d{1,15}$/.test(featureId)) throw notFound('Feature');
  return Number(featureId);
}

/** A write whose `If-Match` named another version: 412 with who changed the feature and its version. */
async function preconditioned<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof AppError && error.code === 'version_conflict')
      throw preconditionFailed(error.message, error.details);
    throw error;
  }
}
