/**
 * The coverage of a tile's thinned features: at low zooms a big layer keeps one small feature
 * per grid cell (thinning.ts), which drawn alone reads as a sparse grid of dots. Each of those
 * features stands for its whole cell (it is the first of the cell's features), so the cells
 * they occupy, merged, show where the layer has data. `coverageRings` turns a set of occupied
 * cells into the rings of their union: exterior rings clockwise and holes counter-clockwise in
 * tile coordinates (y down, the MVT convention), vertices only where the outline turns.
 */

/** A cell's column and row, both from `-1` (the buffer left or above the tile) upwards. */
export interface CellGrid {
  /** Cells per tile side. */
  cellsPerSide: number;
  /** Tile extent (units per tile side). */
  extent: number;
  /** Buffer around the tile in extent units; rings are clamped to it. */
  buffer: number;
}

type Point = [number, number];

/** The key of cell (col, row); columns and rows from -1 to cellsPerSide. */
export const cellKey = (col: number, row: number): number => (row + 2) * 4096 + (col + 2);
const colOf = (key: number) => (key % 4096) - 2;
const rowOf = (key: number) => Math.floor(key / 4096) - 2;

/** The cell holding tile point (x, y), or null outside the tile and its buffer cells. */
export function cellAt(grid: CellGrid, x: number, y: number): number | null {
  const size = grid.extent / grid.cellsPerSide;
  const col = Math.floor(x / size);
  const row = Math.floor(y / size);
  if (col < -1 || row < -1 || col > grid.cellsPerSide || row > grid.cellsPerSide) return null;
  return cellKey(col, row);
}

/** Whether an occupied cell has an occupied neighbour among its eight. */
export function hasNeighbour(cells: { has(key: number): boolean }, key: number): boolean {
  const col = colOf(key);
  const row = rowOf(key);
  for (let dr = -1; dr <= 1; dr++)
    for (let dc = -1; dc <= 1; dc++) if ((dr || dc) && cells.has(cellKey(col + dc, row + dr))) return true;
  return false;
}

/**
 * The polygons (each a list of rings: its exterior, then its holes) covering the given cells, in
 * tile coordinates clamped to the tile and its buffer.
 */
export function coverageRings(grid: CellGrid, cells: ReadonlySet<number>): Point[][][] {
  const rings = traceRings(cells);
  const size = grid.extent / grid.cellsPerSide;
  const clamp = (v: number) => Math.max(-grid.buffer, Math.min(grid.extent + grid.buffer, v * size));
  const exteriors: { ring: Point[]; area: number; holes: Point[][] }[] = [];
  const holes: Point[][] = [];
  for (const ring of rings) {
    const area = signedArea(ring);
    if (area > 0) exteriors.push({ ring, area, holes: [] });
    else holes.push(ring);
  }
  exteriors.sort((a, b) => a.area - b.area);
  for (const hole of holes) {
    // The cell right of the hole's first edge is occupied: the smallest exterior around it owns the hole.
    // (Right of travel on screen: direction (dx, dy) has (-dy, dx) on its right.)
    const [[x0, y0], [x1, y1]] = [hole[0]!, hole[1]!];
    const inside: Point = [
      x0 + 0.5 * Math.sign(x1 - x0) - 0.5 * Math.sign(y1 - y0),
      y0 + 0.5 * Math.sign(y1 - y0) + 0.5 * Math.sign(x1 - x0),
    ];
    exteriors.find((exterior) => contains(exterior.ring, inside))?.holes.push(hole);
  }
  const scaled = (ring: Point[]): Point[] => ring.map(([x, y]) => [clamp(x), clamp(y)]);
  return exteriors.map(({ ring, holes: inner }) => [scaled(ring), ...inner.map(scaled)]);
}

/** Twice the signed area, positive for rings clockwise on screen (y down). */
function signedArea(ring: Point[]): number {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++)
    sum += (ring[j]![0] - ring[i]![0]) * (ring[i]![1] + ring[j]![1]);
  return sum;
}

/** Ray casting: whether the point (never on a grid line) lies inside the ring. */
function contains(ring: Point[], [x, y]: Point): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Directions: right, down, left, up (y down). */
const DX = [1, 0, -1, 0];
const DY = [0, 1, 0, -1];

/**
 * The closed outlines of the union of cells, in cell units, interior on the right of travel
 * (clockwise exteriors, counter-clockwise holes); at a vertex where two cells touch corner to
 * corner the outline turns right, keeping them apart.
 */
function traceRings(cells: ReadonlySet<number>): Point[][] {
  // Boundary edges keyed by their start vertex and direction.
  const edges = new Map<number, number[]>();
  const vertexKey = (x: number, y: number) => (y + 2) * 4096 + (x + 2);
  const add = (x: number, y: number, dir: number) => {
    const key = vertexKey(x, y);
    const list = edges.get(key);
    if (list) list.push(dir);
    else edges.set(key, [dir]);
  };
  for (const key of cells) {
    const c = colOf(key);
    const r = rowOf(key);
    if (!cells.has(cellKey(c, r - 1))) add(c, r, 0);
    if (!cells.has(cellKey(c + 1, r))) add(c + 1, r, 1);
    if (!cells.has(cellKey(c, r + 1))) add(c + 1, r + 1, 2);
    if (!cells.has(cellKey(c - 1, r))) add(c, r + 1, 3);
  }
  const take = (x: number, y: number, incoming: number): number | null => {
    const key = vertexKey(x, y);
    const list = edges.get(key);
    if (!list || list.length === 0) return null;
    // Prefer a right turn, then straight on, then a left turn.
    for (const turn of [1, 0, 3]) {
      const dir = (incoming + turn) % 4;
      const at = list.indexOf(dir);
      if (at >= 0) {
        list.splice(at, 1);
        if (list.length === 0) edges.delete(key);
        return dir;
      }
    }
    return null;
  };
  const rings: Point[][] = [];
  for (const [start, list] of edges) {
    while (list.length > 0) {
      const sx = (start % 4096) - 2;
      const sy = Math.floor(start / 4096) - 2;
      const first = list.pop()!;
      if (list.length === 0) edges.delete(start);
      const ring: Point[] = [[sx, sy]];
      let dir = first;
      let x = sx + DX[dir]!;
      let y = sy + DY[dir]!;
      while (x !== sx || y !== sy) {
        const next = take(x, y, dir);
        if (next === null) break;
        if (next !== dir) ring.push([x, y]);
        dir = next;
        x += DX[dir]!;
        y += DY[dir]!;
      }
      // The start vertex stays only when the outline turns there.
      if (dir === first) ring.shift();
      ring.push([...ring[0]!] as Point);
      rings.push(ring);
    }
  }
  return rings;
}
