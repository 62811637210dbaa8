import type { SlidesTable } from '../../db/tables.js';
import type { KeptState, Restorable } from '../history/restorable.js';
import { presentSlide, slideColumns } from './slides.presenter.js';
import type { Slide } from './slides.schemas.js';
import { referenceLookups, type SlidesServiceParts } from './slides.service.js';

type KeptSlide = KeptState & Slide;

/**
 * Slides back as history kept them: a slide still in the deck keeps its place, one that was
 * deleted comes back at the end; objects it showed that are gone since are left out, and the
 * restore says so.
 */
export function slideRestorable(
  parts: Pick<SlidesServiceParts, 'slides' | 'markers' | 'drawings' | 'layers'>,
): Restorable {
  return {
    objectType: 'slide',
    async prepare(roomId, kept) {
      const state = { ...kept } as KeptSlide;
      const notes: string[] = [];
      for (const [field, existing] of referenceLookups(parts, roomId)) {
        const found = await existing(state[field]);
        const gone = state[field].filter((id) => !found.has(id));
        if (gone.length === 0) continue;
        state[field] = state[field].filter((id) => found.has(id));
        notes.push(`${field} left out what is no longer in the room: ${gone.join(', ')}`);
      }
      return { state, notes };
    },
    async restore(trx, roomId, kept) {
      const state = kept as KeptSlide;
      const current = await parts.slides.find(roomId, state.id, trx);
      const row: SlidesTable = {
        id: state.id,
        room_id: roomId,
        position: current?.position ?? (await parts.slides.count(trx, roomId)),
        title: state.title,
        body: null,
        view: '',
        base_layer: null,
        marker_ids: '[]',
        layer_ids: '[]',
        raster_layer_ids: '[]',
        drawing_ids: '[]',
        ...slideColumns(state),
        created_by: state.createdBy,
        created_at: state.createdAt,
        updated_at: Date.now(),
      };
      await parts.slides.put(trx, row);
      const data = presentSlide(row);
      return {
        change: { type: current ? 'slide.updated' : 'slide.created', objectType: 'slide', objectId: row.id, data },
      };
    },
  };
}
