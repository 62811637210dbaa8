/** A point on the screen, in px from the map's top left corner. */
export type ScreenPoint = [x: number, y: number];

/**
 * Where a feature's label goes, in screen px, from its geometry already projected to the screen:
 * a point at the point, a line at its middle vertex, a polygon at an interior point of its
 * visible part (the middle of the widest span of the horizontal line through the middle of its
 * visible height). Null when nothing of it is on the screen (a polygon) or it has no vertex.
 * Pure, so that it is tested without a browser (test/web/layer-style.test.ts).
 */
export function labelAnchor(
  type: 'Point' | 'LineString' | 'Polygon',
  parts: ScreenPoint[][],
  width: number,
  height: number,
): ScreenPoint | null {
  if (type === 'Point') return parts[0]?.[0] ?? null;
  if (type === 'LineString') {
    const longest = parts.reduce<ScreenPoint[]>((a, b) => (b.length > a.length ? b : a), []);
    return longest[Math.floor(longest.length / 2)] ?? null;
  }
  // Polygon: `parts` are its rings (outer and holes, of every polygon of a multi-polygon).
  let top = Number.POSITIVE_INFINITY;
  let bottom = Number.NEGATIVE_INFINITY;
  for (const ring of parts)
    for (const [, y] of ring) {
      top = Math.min(top, y);
      bottom = Math.max(bottom, y);
    }
  top = Math.max(top, 0);
  bottom = Math.min(bottom, height);
  if (!(top < bottom)) return null;
  const y = (top + bottom) / 2;
  // Where the rings cross the line y: inside between the 1st and 2nd crossing, the 3rd and 4th...
  const xs: number[] = [];
  for (const ring of parts)
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [x1, y1] = ring[i]!;
      const [x2, y2] = ring[j]!;
      if (y1 > y !== y2 > y) xs.push(x1 + ((y - y1) * (x2 - x1)) / (y2 - y1));
    }
  xs.sort((a, b) => a - b);
  let best: ScreenPoint | null = null;
  let widest = 0;
  for (let i = 0; i + 1 < xs.length; i += 2) {
    const left = Math.max(xs[i]!, 0);
    const right = Math.min(xs[i + 1]!, width);
    if (right - left > widest) {
      widest = right - left;
      best = [(left + right) / 2, y];
    }
  }
  return best;
}
