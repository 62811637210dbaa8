import type { SlidesTable } from '../../db/tables.js';
import type { Slide, SlideInput } from './slides.schemas.js';

const ids = (json: string) => JSON.parse(json) as string[];

export const presentSlide = (row: SlidesTable): Slide => ({
  id: row.id,
  position: row.position,
  title: row.title,
  body: row.body,
  view: JSON.parse(row.view) as Slide['view'],
  baseLayer: row.base_layer as Slide['baseLayer'],
  markerIds: ids(row.marker_ids),
  layerIds: ids(row.layer_ids),
  rasterLayerIds: ids(row.raster_layer_ids),
  drawingIds: ids(row.drawing_ids),
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The columns for the fields present in `input`. */
export function slideColumns(input: SlideInput): Partial<SlidesTable> {
  return {
    ...(input.title !== undefined && { title: input.title }),
    ...(input.body !== undefined && { body: input.body }),
    ...(input.view !== undefined && { view: JSON.stringify(input.view) }),
    ...(input.baseLayer !== undefined && { base_layer: input.baseLayer }),
    ...(input.markerIds !== undefined && { marker_ids: JSON.stringify(input.markerIds) }),
    ...(input.layerIds !== undefined && { layer_ids: JSON.stringify(input.layerIds) }),
    ...(input.rasterLayerIds !== undefined && { raster_layer_ids: JSON.stringify(input.rasterLayerIds) }),
    ...(input.drawingIds !== undefined && { drawing_ids: JSON.stringify(input.drawingIds) }),
  };
}
