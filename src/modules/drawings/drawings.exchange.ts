import type { Db } from '../../db/database.js';
import type { RoomTable } from '../../db/room-table.js';
import type { DrawingsTable } from '../../db/tables.js';
import { invalidFile } from '../../errors.js';
import { geometryProblem } from '../../geo/geometry.js';
import type { GeoJsonGeometry } from '../../geo/gpkg/wkb.js';
import type { Exchange } from '../exchange/exchange.js';
import { authored, authoredColumns, fileRowOf, objectsExchange } from '../exchange/file-tables.js';
import { checker, json, text } from '../exchange/restore-values.js';
import { presentDrawing } from './drawings.presenter.js';
import { Drawing } from './drawings.schemas.js';

const checkDrawing = checker('drawing', Drawing, presentDrawing);

/**
 * Drawn shapes: feature tables, the shape is the geometry; one table per kind (drawings are
 * Points, LineStrings or Polygons), so that QGIS shows them all (a table mixing them shows the
 * first one's kind only). The import also reads `drawings`, a table of every kind (earlier exports).
 */
export function drawingsExchange(db: Db, drawings: RoomTable<'drawings'>): Exchange<DrawingsTable> {
  return {
    ...objectsExchange({
      source: 'drawings',
      description: 'Drawn shapes',
      omit: ['room_id', 'geometry'],
      columns: { id: 'TEXT', label: 'TEXT', style: 'TEXT', ...authoredColumns },
      store: drawings,
      db,
      geometry: { type: 'GEOMETRY', of: (row) => JSON.parse(row.geometry) as GeoJsonGeometry },
      geometryTables: [
        { table: 'drawings_points', geometryType: 'POINT', holds: 'Point' },
        { table: 'drawings_lines', geometryType: 'LINESTRING', holds: 'LineString' },
        { table: 'drawings_polygons', geometryType: 'POLYGON', holds: 'Polygon' },
      ],
      restore: {
        kind: 'drawing',
        check: checkDrawing,
        after: [],
        counted: 'drawings',
        own(p, context, { geometry, index }) {
          if (!geometry) return null;
          context.countOne();
          const problem = geometryProblem(geometry);
          if (problem) throw invalidFile(`The export's drawing ${index + 1} cannot be restored: ${problem}`);
          return {
            geometry: JSON.stringify(geometry),
            label: text(p.label),
            style: json(p.style),
            ...authored(p, context),
          };
        },
      },
    }),
    clone: {
      manifest: (rows) => ({ drawings: rows.map(presentDrawing) }),
      restoredFrom: {
        field: 'drawings',
        fileRow: (drawing: Drawing) => ({
          row: fileRowOf(drawing, ['id', 'label', 'style']),
          geometry: drawing.geometry as GeoJsonGeometry,
        }),
      },
    },
  };
}
