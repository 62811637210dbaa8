import type { LayerField } from '../../geo/feature-fields.js';
import type { LayerGeometryType } from '../../geo/feature-summary.js';
import type { Field } from './layer-fields.schemas.js';
import type { LayerRow } from './layers.repository.js';
import { DEFAULT_STYLE, type LayerStyle, type VectorLayer } from './layers.schemas.js';

const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export const styleOf = (row: LayerRow): LayerStyle => ({ ...DEFAULT_STYLE, ...json<Partial<LayerStyle>>(row.style) });

export const presentVectorLayer = (row: LayerRow): VectorLayer => ({
  id: row.id,
  name: row.name,
  description: row.description,
  featureCount: Number(row.feature_count),
  geometryType: row.geometry_type as LayerGeometryType | null,
  fields: (fieldsOf(row) ?? []).map(presentField),
  bbox: json<number[]>(row.bbox),
  style: styleOf(row),
  sourceFormat: row.source_format as VectorLayer['sourceFormat'],
  sourceCrs: row.source_crs,
  source: row.source_url
    ? {
        url: row.source_url,
        refreshMinutes: row.refresh_minutes === null ? null : Number(row.refresh_minutes),
        lastRefreshAt: row.last_refresh_at === null ? null : Number(row.last_refresh_at),
        lastError: row.last_error,
      }
    : null,
  sizeBytes: Number(row.size_bytes),
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** A vector layer's recorded fields (null: none recorded). */
export const fieldsOf = (row: LayerRow): LayerField[] | null => json<LayerField[]>(row.fields);

/** A field as the routes show it (`string` is `text` there), with `required` always said. */
export const presentField = (field: LayerField): Field => ({
  name: field.name,
  type: field.type === 'string' ? 'text' : field.type,
  required: field.required ?? false,
  ...(field.choices && { choices: field.choices }),
  ...(field.default !== undefined && field.default !== null && { default: field.default }),
});
