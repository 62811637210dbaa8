import type { Db } from '../../db/database.js';
import type { RoomTable } from '../../db/room-table.js';
import type { DrawingsTable } from '../../db/tables.js';
import { invalidFile } from '../../errors.js';
import { geometryProblem } from '../../geo/geometry.js';
import type { GeoJsonGeometry } from '../../geo/gpkg/wkb.js';
import { newId } from '../../ids.js';
import { type Exchange, exchangeColumns } from '../exchange/exchange.js';
import { checker, json, text, when } from '../exchange/restore-values.js';
import { presentDrawing } from './drawings.presenter.js';
import { Drawing } from './drawings.schemas.js';

const checkDrawing = checker('drawing', Drawing, presentDrawing);

/** Drawn shapes: a feature table, the shape is the geometry. */
export function drawingsExchange(db: Db, drawings: RoomTable<'drawings'>): Exchange<DrawingsTable> {
  return {
    table: 'drawings',
    description: 'Drawn shapes',
    source: 'drawings',
    ...exchangeColumns<DrawingsTable>()({
      omit: ['room_id', 'geometry'],
      columns: { id: 'TEXT', label: 'TEXT', style: 'TEXT', created_by: 'TEXT', created_at: 'time', updated_at: 'time' },
    }),
    geometry: { type: 'GEOMETRY', of: (row) => JSON.parse(row.geometry) as GeoJsonGeometry },
    rows: (roomId) => drawings.list(roomId),
    count: (roomId) => drawings.count(db, roomId),
    clone: {
      manifest: (rows) => ({ drawings: rows.map(presentDrawing) }),
      restoredFrom: {
        field: 'drawings',
        fileRow: (drawing: Drawing) => ({
          row: {
            id: drawing.id,
            label: drawing.label ?? null,
            style: drawing.style ? JSON.stringify(drawing.style) : null,
          },
          geometry: drawing.geometry as GeoJsonGeometry,
        }),
      },
    },
    restore: {
      after: [],
      counted: 'drawings',
      add(p, context, { geometry, index }) {
        if (!geometry) return null;
        context.countOne();
        const problem = geometryProblem(geometry);
        if (problem) throw invalidFile(`The export's drawing ${index + 1} cannot be restored: ${problem}`);
        const row: DrawingsTable = {
          id: newId('drawing'),
          room_id: context.roomId,
          geometry: JSON.stringify(geometry),
          label: text(p.label),
          style: json(p.style),
          created_by: context.actor.id,
          created_at: when(p.created_at),
          updated_at: when(p.updated_at),
        };
        checkDrawing(row, index);
        context.remember('drawing', p.id, row.id);
        return row;
      },
      insert: (trx, rows) => drawings.insert(trx, rows),
    },
  };
}
