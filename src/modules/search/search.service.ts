import { invalidField } from '../../errors.js';
import type { LayerField } from '../../geo/feature-fields.js';
import { summarizeGeometry } from '../../geo/feature-summary.js';
import type { DrawingsRepository } from '../drawings/drawings.repository.js';
import type { FeatureAttributesRepository } from '../layers/feature-attributes.js';
import type { LayersRepository } from '../layers/layers.repository.js';
import type { MarkersRepository } from '../markers/markers.repository.js';
import {
  DEFAULT_SEARCH_LIMIT,
  type PartialLayer,
  type SearchQuery,
  type SearchResult,
  type SearchResults,
} from './search.schemas.js';

/**
 * The most vector layers one search reads (in the room's order): with each read bounded by
 * `scanRows`, a search costs at most this many times that, whatever the room holds.
 */
export const MAX_LAYERS_SEARCHED = 20;

export interface SearchParts {
  markers: MarkersRepository;
  drawings: DrawingsRepository;
  layers: LayersRepository;
  attributes: FeatureAttributesRepository;
  /** The most features read per layer (config `attributesScanRows`, the attribute table's bound). */
  scanRows: number;
}

/**
 * Finds a text in a room: markers by title or description, drawings by label, features of its
 * vector layers by any text field. Each layer's search reads at most `scanRows` features (in
 * id order, as the attribute table's text filter does), so a keystroke never scans a million;
 * the layers it read only in part are named, so that the page can offer their attribute table
 * (whose `q` pages through the whole layer).
 */
export class SearchService {
  constructor(private readonly parts: SearchParts) {}

  async search(roomId: string, query: SearchQuery): Promise<SearchResults> {
    const text = query.q.trim();
    if (!text) throw invalidField('querystring.q', 'must hold a character other than spaces');
    const limit = query.limit ?? DEFAULT_SEARCH_LIMIT;
    const results: SearchResult[] = [];
    for (const row of await this.parts.markers.search(roomId, text, limit))
      results.push({
        kind: 'marker',
        id: row.id,
        title: row.title || 'Untitled marker',
        ...(row.description && { detail: row.description.slice(0, 120) }),
        bbox: [row.longitude, row.latitude, row.longitude, row.latitude],
      });
    for (const row of await this.parts.drawings.search(roomId, text, limit - results.length)) {
      const geometry = JSON.parse(row.geometry) as { type: string };
      const bbox = summarizeGeometry(geometry)?.bbox;
      if (bbox) results.push({ kind: 'drawing', id: row.id, title: row.label ?? '', detail: geometry.type, bbox });
    }
    const partialLayers: PartialLayer[] = [];
    const layers = (await this.parts.layers.listOfKind(roomId)).filter((layer) => layer.storage_key !== null);
    for (const layer of layers.slice(0, MAX_LAYERS_SEARCHED)) {
      if (results.length >= limit) break;
      const found = await this.features(layer, text, limit - results.length);
      results.push(...found.results);
      if (found.partial)
        partialLayers.push({
          layerId: layer.id,
          name: layer.name,
          featureCount: Number(layer.feature_count),
          searched: this.parts.scanRows,
        });
    }
    return { results: results.slice(0, limit), partialLayers };
  }

  /**
   * The first `limit` features of a layer (by id, within its first `scanRows`) with the text in a
   * text field; `partial` when the window ended before `limit` were found and the layer goes on.
   */
  private async features(
    layer: { id: string; name: string; storage_key: number | null; fields: string | null },
    text: string,
    limit: number,
  ): Promise<{ results: SearchResult[]; partial: boolean }> {
    const fields: LayerField[] = layer.fields ? JSON.parse(layer.fields) : [];
    const textFields = fields.filter((f) => f.type === 'string').map((f) => f.name);
    if (!textFields.length) return { results: [], partial: false };
    const { rows, stoppedAfter } = await this.parts.attributes.page(Number(layer.storage_key), {
      sort: { by: 'id' },
      descending: false,
      after: null,
      q: { text, textFields },
      limit,
      scanRows: this.parts.scanRows,
    });
    const needle = text.toLowerCase();
    const results = rows.map((row): SearchResult => {
      const properties = JSON.parse(row.properties) as Record<string, unknown>;
      const field = textFields.find((name) =>
        String(properties[name] ?? '')
          .toLowerCase()
          .includes(needle),
      );
      return {
        kind: 'feature',
        id: row.id,
        layerId: layer.id,
        title: String(properties[field ?? ''] ?? `Feature ${row.id}`),
        detail: [layer.name, field, featureNamed(properties, textFields, field, row.id)].filter(Boolean).join(' · '),
        bbox: row.bbox,
      };
    });
    return { results, partial: stoppedAfter !== null };
  }
}

/** A field that names a feature (name, NAME_EN, title, label, ...). */
const NAMING_FIELD = /name|title|label/i;

/**
 * Which feature a result is, beside the text that matched (many features may share it: nine
 * parcels owned by "Aare AG"): its name from another naming field when it has one, and its id.
 */
function featureNamed(
  properties: Record<string, unknown>,
  textFields: string[],
  matched: string | undefined,
  id: number,
) {
  const naming = textFields.find((name) => name !== matched && NAMING_FIELD.test(name) && properties[name]);
  return naming ? `${String(properties[naming])} (feature ${id})` : `feature ${id}`;
}
