import type { DrawingsTable } from '../../db/tables.js';
import type { DeclaredGeometry } from './ogc.presenter.js';

/**
 * The drawings as OGC API collections: `drawings` holds them all (points, lines and polygons
 * together, as before), and `drawings-points`, `drawings-lines` and `drawings-polygons` each
 * hold one kind. QGIS 3.22 gives a collection the geometry type of the first feature of its
 * first page and draws only features of that type; GDAL's layer is then of no one type. A
 * collection per kind is read whole by both. The per-kind collections are listed when the room
 * has drawings of that kind, and answered always (empty, a saved QGIS connection keeps working).
 */
export interface DrawingCollection {
  id: string;
  title: string;
  description: string;
  /** The GeoJSON geometry type its drawings have (null: any). */
  kind: 'Point' | 'LineString' | 'Polygon' | null;
}

export const DRAWINGS = 'drawings';

export const DRAWING_COLLECTIONS: readonly DrawingCollection[] = [
  {
    id: DRAWINGS,
    title: 'Drawings',
    description: "The room's drawn shapes: points, lines and polygons together",
    kind: null,
  },
  { id: 'drawings-points', title: 'Drawings: points', description: "The room's drawn points", kind: 'Point' },
  { id: 'drawings-lines', title: 'Drawings: lines', description: "The room's drawn lines", kind: 'LineString' },
  {
    id: 'drawings-polygons',
    title: 'Drawings: polygons',
    description: "The room's drawn polygons",
    kind: 'Polygon',
  },
];

/** The drawings collection of that id, or undefined. */
export const drawingCollection = (id: string) => DRAWING_COLLECTIONS.find((c) => c.id === id);

/** A drawing's geometry type (drawings are Points, LineStrings or Polygons). */
export const drawingKind = (row: DrawingsTable): string => (JSON.parse(row.geometry) as { type: string }).type;

/** The drawings of a collection, from the room's. */
export const drawingsOf = (collection: DrawingCollection, rows: DrawingsTable[]) =>
  collection.kind === null ? rows : rows.filter((row) => drawingKind(row) === collection.kind);

/** What a drawings collection declares of its geometry. */
export const drawingGeometry = (collection: DrawingCollection): DeclaredGeometry =>
  collection.kind === null ? null : { type: collection.kind, multi: false };
