import type { RoomTable } from '../../db/room-table.js';
import type { Restorable } from '../history/restorable.js';
import { drawingColumns, presentDrawing } from './drawings.presenter.js';
import type { Drawing } from './drawings.schemas.js';

/** Drawings back as history kept them. */
export function drawingRestorable(drawings: RoomTable<'drawings'>): Restorable {
  return {
    objectType: 'drawing',
    async restore(trx, roomId, kept) {
      const state = kept as typeof kept & Drawing;
      const row = {
        id: state.id,
        room_id: roomId,
        geometry: '',
        label: null,
        style: null,
        ...drawingColumns(state),
        created_by: state.createdBy,
        created_at: state.createdAt,
        updated_at: Date.now(),
      };
      const previous = await drawings.put(trx, row);
      const data = presentDrawing(row);
      return {
        change: {
          type: previous ? 'drawing.updated' : 'drawing.created',
          objectType: 'drawing',
          objectId: row.id,
          data,
        },
      };
    },
  };
}
