import type { DrawingsTable } from '../../db/tables.js';
import type { Drawing } from './drawings.schemas.js';

export const presentDrawing = (row: DrawingsTable): Drawing => ({
  id: row.id,
  geometry: JSON.parse(row.geometry) as unknown,
  label: row.label,
  style: row.style === null ? null : (JSON.parse(row.style) as Drawing['style']),
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The columns for the fields present in `input`. */
export const drawingColumns = (input: {
  geometry?: unknown;
  label?: string | null;
  style?: Drawing['style'];
}): Partial<DrawingsTable> => ({
  ...(input.geometry !== undefined && { geometry: JSON.stringify(input.geometry) }),
  ...(input.label !== undefined && { label: input.label }),
  ...(input.style !== undefined && { style: input.style === null ? null : JSON.stringify(input.style) }),
});
