import type { Caller } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { RoomTable } from '../../db/room-table.js';
import type { SlidesTable } from '../../db/tables.js';
import { badRequest, emptyUpdate, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { presentDrawing } from '../drawings/drawings.service.js';
import { actorOf, type WritePath } from '../history/write-path.js';
import { presentMarker } from '../markers/markers.presenter.js';
import type { RoomRow } from '../rooms/rooms.repository.js';
import type { SlideInput } from './slides.schemas.js';

const ids = (json: string) => JSON.parse(json) as string[];

export const presentSlide = (row: SlidesTable) => ({
  id: row.id,
  position: row.position,
  title: row.title,
  body: row.body,
  view: JSON.parse(row.view) as NonNullable<SlideInput['view']>,
  baseLayer: row.base_layer,
  markerIds: ids(row.marker_ids),
  layerIds: ids(row.layer_ids),
  rasterLayerIds: ids(row.raster_layer_ids),
  drawingIds: ids(row.drawing_ids),
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The columns for the fields present in `input`. */
function slideColumns(input: SlideInput): Partial<SlidesTable> {
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

/** The slide deck of a room and its presentation snapshot. */
export class SlidesService {
  constructor(
    private readonly slides: RoomTable<'slides'>,
    private readonly markers: RoomTable<'markers'>,
    private readonly drawings: RoomTable<'drawings'>,
    private readonly writePath: WritePath,
  ) {}

  async list(room: RoomRow) {
    return { slides: (await this.slides.list(room.id)).map(presentSlide) };
  }

  async create(room: RoomRow, caller: Caller, input: SlideInput & { title: string; view: object }) {
    await this.checkReferences(room.id, input);
    const now = Date.now();
    const slide = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const row: SlidesTable = {
        id: newId('slide'),
        room_id: room.id,
        position: (await this.slides.count(trx, room.id)),
        title: input.title,
        body: null,
        view: JSON.stringify(input.view),
        base_layer: null,
        marker_ids: '[]',
        layer_ids: '[]',
        raster_layer_ids: '[]',
        drawing_ids: '[]',
        ...slideColumns(input),
        created_by: actorOf(caller).id,
        created_at: now,
        updated_at: now,
      };
      await this.slides.insert(trx, [row]);
      const slide = presentSlide(row);
      return { result: slide, changes: [{ type: 'slide.created', objectType: 'slide', objectId: row.id, changes: { ...input }, data: slide }] };
    });
    return { success: true, slide };
  }

  async update(room: RoomRow, caller: Caller, slideId: string, input: SlideInput) {
    if (Object.keys(input).length === 0) throw emptyUpdate();
    await this.checkReferences(room.id, input);
    const slide = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const previous = await this.slides.find(room.id, slideId, trx);
      if (!previous) throw notFound('Slide');
      const row: SlidesTable = { ...previous, ...slideColumns(input), updated_at: Date.now() };
      await this.slides.replace(trx, row);
      const slide = presentSlide(row);
      return { result: slide, changes: [{ type: 'slide.updated', objectType: 'slide', objectId: slideId, changes: { ...input }, data: slide }] };
    });
    return { success: true, slide };
  }

  async delete(room: RoomRow, caller: Caller, slideId: string) {
    await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      if (!(await this.slides.delete(trx, room.id, slideId))) throw notFound('Slide');
      await this.renumber(trx, room.id, (await this.slides.list(room.id, trx)).map((s) => s.id));
      return { result: null, changes: [{ type: 'slide.deleted', objectType: 'slide', objectId: slideId, data: null }] };
    });
    return { success: true, slideId };
  }

  /** Puts the deck in the given order; `slideIds` must name every slide once. */
  async reorder(room: RoomRow, caller: Caller, slideIds: string[]) {
    const slides = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const current = new Set((await this.slides.list(room.id, trx)).map((s) => s.id));
      if (slideIds.length !== current.size || !slideIds.every((id) => current.has(id))) {
        throw badRequest('slideIds must list every slide of the room exactly once', [{ field: 'body.slideIds', message: 'not the room\'s slides' }]);
      }
      await this.renumber(trx, room.id, slideIds);
      const slides = (await this.slides.list(room.id, trx)).map(presentSlide);
      return {
        result: slides,
        changes: [{ type: 'presentation.updated', objectType: 'presentation', objectId: room.id, changes: { slideIds }, data: { slideIds } }],
      };
    });
    return { success: true, slides };
  }

  /** The deck with only the objects its slides show, and nothing else of the room. */
  async presentation(room: RoomRow) {
    const slides = (await this.slides.list(room.id)).map(presentSlide);
    const shown = (key: 'markerIds' | 'drawingIds') => [...new Set(slides.flatMap((s) => s[key]))];
    const [markers, drawings] = await Promise.all([
      this.markers.findMany(room.id, shown('markerIds')),
      this.drawings.findMany(room.id, shown('drawingIds')),
    ]);
    return {
      slides,
      markers: markers.map(presentMarker),
      // Vector and raster layers join the snapshot when the layer modules exist.
      layers: [] as unknown[],
      rasterLayers: [] as unknown[],
      drawings: drawings.map(presentDrawing),
    };
  }

  private async renumber(trx: Db, roomId: string, order: string[]) {
    for (const [position, id] of order.entries()) {
      await trx.updateTable('slides').set({ position }).where('room_id', '=', roomId).where('id', '=', id).execute();
    }
  }

  /** Markers and drawings a slide shows must exist in the room. */
  private async checkReferences(roomId: string, input: SlideInput) {
    for (const [field, table] of [
      ['markerIds', this.markers],
      ['drawingIds', this.drawings],
    ] as const) {
      const wanted = input[field] ?? [];
      const found = await (table as RoomTable<'markers' | 'drawings'>).existing(roomId, wanted);
      const missing = wanted.filter((id) => !found.has(id));
      if (missing.length) {
        throw badRequest(`${field} names objects that are not in this room: ${missing.slice(0, 5).join(', ')}`, [
          { field: `body.${field}`, message: 'unknown ids' },
        ]);
      }
    }
  }
}
