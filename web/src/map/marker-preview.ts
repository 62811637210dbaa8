import { Marker as HtmlMarker, type Map as MapLibreMap } from 'maplibre-gl';
import type Supercluster from 'supercluster';
import { CIRCLE_STROKE_PX, CLUSTER_RADIUS, clusterIndex, clusterRadius } from './content-style';

/** A view with more clusters and markers than this waits for the map's own drawing instead. */
const MAX_PREVIEWED = 400;

/** What a preview draws of one marker: its position, colour and circle radius (px). */
export interface PreviewPoint {
  coordinates: [number, number];
  color: string;
  radius: number;
}

/**
 * The room's first markers, drawn as HTML before the map draws them itself. MapLibre clusters a
 * GeoJSON source in its worker, which on opening must first start (its script compiled), then
 * receive and index every marker, and the map must then compile its circle shaders: about a
 * second on a software-rendered page. The preview clusters the same markers the same way here
 * (supercluster, MapLibre's own clustering library, with the source's radius and zooms), draws
 * what is in view as the map's clusters and circles look, and goes away as soon as the map has
 * drawn its markers (`remove`). It only shows: a click goes to the map underneath.
 */
export class MarkerPreview {
  private readonly shown: HtmlMarker[] = [];

  constructor(map: MapLibreMap, points: PreviewPoint[]) {
    const zoom = Math.floor(map.getZoom());
    const index = clusterIndex<PreviewPoint>(zoom).load(
      nearView(map, points).map((p) => ({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: p.coordinates },
        properties: p,
      })),
    );
    const bounds = map.getBounds();
    const inView = index.getClusters([bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth()], zoom);
    if (inView.length > MAX_PREVIEWED) return;
    for (const feature of inView) {
      const [lng, lat] = feature.geometry.coordinates as [number, number];
      const element = document.createElement('span');
      const count = (feature.properties as Supercluster.ClusterProperties).point_count;
      if (count) {
        element.className = 'preview-cluster';
        element.style.width = element.style.height = `${2 * (clusterRadius(count) + CIRCLE_STROKE_PX)}px`;
        element.textContent = String((feature.properties as Supercluster.ClusterProperties).point_count_abbreviated);
      } else {
        const point = feature.properties as PreviewPoint;
        element.className = 'preview-marker';
        element.style.width = element.style.height = `${2 * (point.radius + CIRCLE_STROKE_PX)}px`;
        element.style.background = point.color;
      }
      this.shown.push(new HtmlMarker({ element }).setLngLat([lng, lat]).addTo(map));
    }
  }

  /** Whether it drew anything (a view too full for a preview draws nothing). */
  get drawn() {
    return this.shown.length > 0;
  }

  remove() {
    for (const marker of this.shown.splice(0)) marker.remove();
  }
}

/**
 * The points in view or near it: those a cluster in view can hold. A cluster's points lie
 * within its radius of its seed at each zoom it was made at (45 px at the view's whole zoom, then
 * half and a quarter of it at the zooms above): four radii around the view, at the view's own
 * (fractional) zoom, hold them all. Clustering only these is
 * what keeps the preview fast: the room's 10,000 markers may spread over a country, of which
 * the view shows a town, and indexing them all (supercluster's trees, before the page's script
 * is optimised) took 100 ms of the opening. A turned, tilted or world-wrapping view keeps all.
 */
function nearView(map: MapLibreMap, points: PreviewPoint[]): PreviewPoint[] {
  if (map.getBearing() !== 0 || map.getPitch() !== 0) return points;
  const zoom = map.getZoom();
  const MARGIN_PX = 4 * CLUSTER_RADIUS * 2 ** (zoom - Math.floor(zoom));
  const { width, height } = map.getContainer().getBoundingClientRect();
  const northWest = map.unproject([-MARGIN_PX, -MARGIN_PX]);
  const southEast = map.unproject([width + MARGIN_PX, height + MARGIN_PX]);
  if (northWest.lng < -180 || southEast.lng > 180) return points;
  return points.filter(({ coordinates: [lng, lat] }) => {
    return lng >= northWest.lng && lng <= southEast.lng && lat <= northWest.lat && lat >= southEast.lat;
  });
}
