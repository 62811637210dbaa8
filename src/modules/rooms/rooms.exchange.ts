import type { RoomsTable } from '../../db/tables.js';
import type { Exchange } from '../exchange/exchange.js';
import { fileTable } from '../exchange/file-tables.js';
import type { RoomsRepository } from './rooms.repository.js';

/** The room's settings, one row; an import leaves the target room's settings as they are (they are the owner's). */
export function roomExchange(rooms: RoomsRepository): Exchange<RoomsTable> {
  return {
    ...fileTable({
      table: 'room',
      description: "The room's settings",
      source: 'rooms',
      omit: ['created_by', 'version'],
      columns: {
        id: 'TEXT',
        name: 'TEXT',
        description: 'TEXT',
        is_public: 'BOOLEAN',
        presentation_is_public: 'BOOLEAN',
        auto_zoom_enabled: 'BOOLEAN',
        default_view_lat: 'REAL',
        default_view_lng: 'REAL',
        default_view_zoom: 'REAL',
        default_theme: 'TEXT',
        default_base_layer: 'TEXT',
        timeline_settings: 'TEXT',
        basemaps: 'TEXT',
        created_at: 'time',
      },
    }),
    export: {
      rows: async (roomId) => {
        const room = await rooms.find(roomId);
        return room ? [room] : [];
      },
    },
  };
}
