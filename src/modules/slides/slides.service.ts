import { actorOf, type Caller } from '../../auth/access.js';
import type { RoomTable } from '../../db/room-table.js';
import type { SlidesTable } from '../../db/tables.js';
import { badRequest, emptyUpdate, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { presentDrawing } from '../drawings/drawings.presenter.js';
import type { WritePath } from '../history/write-path.js';
import { presentVectorLayer } from '../layers/layers.presenter.js';
import type { LayersRepository } from '../layers/layers.repository.js';
import { presentRasterLayer } from '../rasters/rasters.presenter.js';
import { presentMarker } from '../markers/markers.presenter.js';
import type { RoomRow } from '../../db/tables.js';
import { presentSlide, slideColumns } from './slides.presenter.js';
import type { SlidesRepository } from './slides.repository.js';
import type { CreateSlideInput, SlideInput } from './slides.schemas.js';

/** The id lists of a slide, each with a lookup of which of its ids name objects of the room. */
export function referenceLookups(
  parts: Pick<SlidesServiceParts, 'markers' | 'drawings' | 'layers'>,
  roomId: string,
): [SlideReferenceField, (ids: string[]) => Promise<Set<string>>][] {
  const kindOf = (kind: 'vector' | 'raster') => async (ids: string[]) =>
    new Set((await parts.layers.findMany(roomId, ids)).filter((l) => l.kind === kind).map((l) => l.id));
  return [
    ['markerIds', (ids) => parts.markers.existing(roomId, ids)],
    ['drawingIds', (ids) => parts.drawings.existing(roomId, ids)],
    ['layerIds', kindOf('vector')],
    ['rasterLayerIds', kindOf('raster')],
  ];
}

export type SlideReferenceField = 'markerIds' | 'drawingIds' | 'layerIds' | 'rasterLayerIds';

export interface SlidesServiceParts {
  slides: SlidesRepository;
  markers: RoomTable<'markers'>;
  drawings: RoomTable<'drawings'>;
  layers: LayersRepository;
  writePath: WritePath;
}

/** The slide deck of a room and its presentation snapshot. */
export class SlidesService {
  private readonly slides: SlidesRepository;
  private readonly markers: RoomTable<'markers'>;
  private readonly drawings: RoomTable<'drawings'>;
  private readonly layers: LayersRepository;
  private readonly writePath: WritePath;

  constructor(parts: SlidesServiceParts) {
    ({
      slides: this.slides,
      markers: this.markers,
      drawings: this.drawings,
      layers: this.layers,
      writePath: this.writePath,
    } = parts);
  }

  async list(room: RoomRow) {
    return { slides: (await this.slides.list(room.id)).map(presentSlide) };
  }

  async create(room: RoomRow, caller: Caller, input: CreateSlideInput) {
    await this.checkReferences(room.id, input);
    const now = Date.now();
    const slide = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const row: SlidesTable = {
        id: newId('slide'),
        room_id: room.id,
        position: await this.slides.count(trx, room.id),
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
      return {
        result: slide,
        changes: [{ type: 'slide.created', objectType: 'slide', objectId: row.id, changes: { ...input }, data: slide }],
      };
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
      return {
        result: slide,
        changes: [
          { type: 'slide.updated', objectType: 'slide', objectId: slideId, changes: { ...input }, data: slide },
        ],
      };
    });
    return { success: true, slide };
  }

  async delete(room: RoomRow, caller: Caller, slideId: string, ifLatestVersion?: number) {
    await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      if (!(await this.slides.delete(trx, room.id, slideId))) throw notFound('Slide');
      // After the delete (undone with the write if refused): a slide that is gone is a 404.
      await this.writePath.ensureLatest(trx, room.id, ['slide', slideId], ifLatestVersion);
      await this.slides.renumber(
        trx,
        room.id,
        (await this.slides.list(room.id, trx)).map((s) => s.id),
      );
      return { result: null, changes: [{ type: 'slide.deleted', objectType: 'slide', objectId: slideId, data: null }] };
    });
    return { success: true, slideId };
  }

  /** Puts the deck in the given order; `slideIds` must name every slide once. */
  async reorder(room: RoomRow, caller: Caller, slideIds: string[]) {
    const slides = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const current = new Set((await this.slides.list(room.id, trx)).map((s) => s.id));
      if (slideIds.length !== current.size || !slideIds.every((id) => current.has(id))) {
        throw badRequest('slideIds must list every slide of the room exactly once', [
          { field: 'body.slideIds', message: "not the room's slides" },
        ]);
      }
      await this.slides.renumber(trx, room.id, slideIds);
      const slides = (await this.slides.list(room.id, trx)).map(presentSlide);
      return {
        result: slides,
        changes: [
          {
            type: 'presentation.updated',
            objectType: 'presentation',
            objectId: room.id,
            changes: { slideIds },
            data: { slideIds },
          },
        ],
      };
    });
    return { success: true, slides };
  }

  /** The deck with only the objects its slides show, and nothing else of the room. */
  async presentation(room: RoomRow) {
    const slides = (await this.slides.list(room.id)).map(presentSlide);
    const shown = (key: 'markerIds' | 'drawingIds' | 'layerIds' | 'rasterLayerIds') => [
      ...new Set(slides.flatMap((s) => s[key])),
    ];
    const [markers, drawings, layers] = await Promise.all([
      this.markers.findMany(room.id, shown('markerIds')),
      this.drawings.findMany(room.id, shown('drawingIds')),
      this.layers.findMany(room.id, [...shown('layerIds'), ...shown('rasterLayerIds')]),
    ]);
    return {
      slides,
      markers: markers.map(presentMarker),
      layers: layers.filter((l) => l.kind === 'vector').map(presentVectorLayer),
      rasterLayers: layers.filter((l) => l.kind === 'raster').map(presentRasterLayer),
      drawings: drawings.map(presentDrawing),
    };
  }

  /** Markers and drawings a slide shows must exist in the room. */
  private async checkReferences(roomId: string, input: SlideInput) {
    for (const [field, existing] of referenceLookups(
      { markers: this.markers, drawings: this.drawings, layers: this.layers },
      roomId,
    )) {
      const wanted = input[field] ?? [];
      if (wanted.length === 0) continue;
      const found = await existing(wanted);
      const missing = wanted.filter((id) => !found.has(id));
      if (missing.length) {
        throw badRequest(`${field} names objects that are not in this room: ${missing.slice(0, 5).join(', ')}`, [
          { field: `body.${field}`, message: 'unknown ids' },
        ]);
      }
    }
  }
}
