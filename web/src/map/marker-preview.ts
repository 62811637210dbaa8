import type Supercluster from 'supercluster';
import { CIRCLE_STROKE_PX, CLUSTER_RADIUS, clusterIndex, clusterRadius } from './content-style';
import { type Projection, projection } from './slide-projection';
import type { TileView } from './view-tiles';

/** A view with more clusters and markers than this waits for the map's own drawing instead. */
const MAX_PREVIEWED = 400;

/** What a preview draws of one marker: its position, colour and circle radius (px). */
export interface PreviewPoint {
  coordinates: [number, number];
  color: string;
  radius: number;
}

/**
 * The room's first markers, drawn as HTML before the map draws them itself, before the map is
 * even made when the room opens at a view known beforehand. MapLibre clusters a GeoJSON source
 * in its worker, which on opening must first start (its script compiled), then receive and
 * index every marker, and the map must make its WebGL context and compile its circle shaders:
 * most of a second on a software-rendered page. The preview clusters the same markers the same
 * way here (supercluster, MapLibre's own clustering library, with the source's radius and
 * zooms), places what is in view where MapLibre's camera puts it (slide-projection.ts), as the
 * map's clusters and circles look, over `container` (the map's element), and goes away as soon
 * as the map has drawn its markers or moves (`remove`). It only shows: a click goes to the map
 * underneath. A tilted view draws nothing.
 */
export class MarkerPreview {
  private readonly layer = document.createElement('div');
  private shown = 0;

  constructor(container: HTMLElement, view: TileView, points: PreviewPoint[]) {
    const { width, height } = container.getBoundingClientRect();
    if ((view.pitch ?? 0) !== 0 || width <= 0 || height <= 0) return;
    const screen = projection(view, width, height);
    const zoom = Math.floor(view.zoom);
    const index = clusterIndex<PreviewPoint>(view.zoom).load(
      nearView(screen, view.zoom, width, height, points).map((p) => ({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: p.coordinates },
        properties: p,
      })),
    );
    const inView = index.getClusters([-180, -90, 180, 90], zoom).flatMap((feature) => {
      const [lng, lat] = feature.geometry.coordinates as [number, number];
      const place = placeWithin(screen, lng, lat, { width, height, margin: 0 });
      return place ? [{ feature, x: place[0], y: place[1] }] : [];
    });
    if (inView.length > MAX_PREVIEWED) return;
    this.layer.className = 'marker-preview';
    this.layer.setAttribute('aria-hidden', 'true');
    for (const { feature, x, y } of inView) {
      const element = document.createElement('span');
      const count = (feature.properties as Supercluster.ClusterProperties).point_count;
      let diameter: number;
      if (count) {
        element.className = 'preview-cluster';
        diameter = 2 * (clusterRadius(count) + CIRCLE_STROKE_PX);
        element.textContent = String((feature.properties as Supercluster.ClusterProperties).point_count_abbreviated);
      } else {
        const point = feature.properties as PreviewPoint;
        element.className = 'preview-marker';
        diameter = 2 * (point.radius + CIRCLE_STROKE_PX);
        element.style.background = point.color;
      }
      element.style.width = element.style.height = `${diameter}px`;
      element.style.transform = `translate(${x - diameter / 2}px, ${y - diameter / 2}px)`;
      this.layer.append(element);
    }
    this.shown = inView.length;
    if (this.shown > 0) container.append(this.layer);
  }

  /** Whether it drew anything (a view too full for a preview draws nothing). */
  get drawn() {
    return this.shown > 0;
  }

  remove() {
    this.layer.remove();
  }
}

/**
 * The points in view or near it: those a cluster in view can hold. A cluster's points lie
 * within its radius of its seed at each zoom it was made at (45 px at the view's whole zoom, then
 * half and a quarter of it at the zooms above): four radii around the view, at the view's own
 * (fractional) zoom, hold them all, whichever way the view is turned. Clustering only these is
 * what keeps the preview fast: the room's 10,000 markers may spread over a country, of which
 * the view shows a town, and indexing them all (supercluster's trees, before the page's script
 * is optimised) took 100 ms of the opening. A view wider than the world keeps all.
 */
function nearView(screen: Projection, zoom: number, width: number, height: number, points: PreviewPoint[]) {
  const margin = 4 * CLUSTER_RADIUS * 2 ** (zoom - Math.floor(zoom));
  if (screen.worldSize < width + 2 * margin) return points;
  return points.filter(({ coordinates: [lng, lat] }) => placeWithin(screen, lng, lat, { width, height, margin }));
}

/** Where on the screen (`margin` px around it too) a place is shown, in the world's copy east or west if there; undefined off it. */
function placeWithin(
  screen: Projection,
  lng: number,
  lat: number,
  { width, height, margin }: { width: number; height: number; margin: number },
): [number, number] | undefined {
  for (const copy of [0, -360, 360]) {
    const [x, y] = screen.project(lng + copy, lat);
    if (x >= -margin && x <= width + margin && y >= -margin && y <= height + margin) return [x, y];
  }
  return undefined;
}
