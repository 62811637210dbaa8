import type { GeoJSONSource, IControl, Map as MapLibreMap } from 'maplibre-gl';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import { type BaseLayer, baseLayerFor, baseLayers } from './base-layers';
import { firstTile, type RoomBasemap, roomBaseLayer } from './room-basemaps';
import { t } from '../i18n/index.js';

/** The ids of the map's own base layers and sources: everything else is the room's content. */
const BASE_IDS = ['base', 'base-land', 'base-coast', 'base-borders'];
/** How long a tile server has to answer the first tile before the offline map is shown instead. */
const PROBE_TIMEOUT_MS = 4000;
/** Failed tiles of a server that answered the probe before it is given up for this page. */
const MAX_TILE_ERRORS = 3;
/**
 * The offline map's sources are cut into tiles up to this zoom, and drawn enlarged above it:
 * Natural Earth at 1:50m has no more detail, and every zoom level more costs the worker a pass
 * over the world's coastlines.
 */
const OFFLINE_MAXZOOM = 8;

const dead = new Set<string>();
const probes = new Map<string, Promise<boolean>>();
let offlineData: Promise<{ land: GeoJSON.FeatureCollection | GeoJSON.Feature; borders: GeoJSON.Geometry }> | null =
  null;

/** Whether a tile server answers one tile in time (an opaque answer counts: only the network failing does not). */
function probe(tiles: string): Promise<boolean> {
  let answer = probes.get(tiles);
  if (!answer) {
    answer = fetch(firstTile(tiles), {
      mode: 'no-cors',
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      credentials: 'omit',
    }).then(
      () => true,
      () => false,
    );
    probes.set(tiles, answer);
  }
  return answer;
}

/** Natural Earth's land and borders, from the TopoJSON this service serves, converted once per page. */
function loadOffline(url: string) {
  offlineData ??= fetch(url)
    .then((response) => {
      if (!response.ok) throw new Error(t('room:baseMap.answered', { status: response.status }));
      return response.json() as Promise<Topology>;
    })
    .then((topology) => {
      const countries = topology.objects.countries as GeometryCollection;
      return {
        land: unwrapped(feature(topology, topology.objects.land!)),
        borders: unwrapped(mesh(topology, countries, (a, b) => a !== b)),
      };
    });
  return offlineData;
}

/**
 * Natural Earth's rings that cross the antimeridian jump from 180° to -180°: drawn flat, each
 * jump is a line across the world. Each point is moved by 360° to stay beside the one before.
 */
function unwrapped<T>(geojson: T): T {
  const walk = (coordinates: unknown): void => {
    if (!Array.isArray(coordinates) || !Array.isArray(coordinates[0])) return;
    if (typeof coordinates[0][0] !== 'number') {
      for (const part of coordinates) walk(part);
      return;
    }
    const line = coordinates as number[][];
    for (let i = 1; i < line.length; i++) {
      const previous = line[i - 1]![0]!;
      const point = line[i]!;
      while (point[0]! - previous > 180) point[0]! -= 360;
      while (point[0]! - previous < -180) point[0]! += 360;
    }
  };
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object') return;
    const object = value as { type?: string; features?: unknown[]; geometry?: unknown; geometries?: unknown[] };
    if (object.features) object.features.forEach(visit);
    else if (object.geometry) visit(object.geometry);
    else if (object.geometries) object.geometries.forEach(visit);
    else if ('coordinates' in object) walk((object as { coordinates: unknown }).coordinates);
  };
  visit(geojson);
  return geojson;
}

/** The colours of the offline map: sea, land, coastline, borders. */
function offlineColours(theme: string | null) {
  return theme === 'dark'
    ? { sea: '#1b2836', land: '#2b2f36', coast: '#52606e', borders: '#6b6f78' }
    : { sea: '#b9d3e6', land: '#f2efe6', coast: '#7f9bb0', borders: '#a08fa8' };
}

/**
 * The base map under a room's content: the chosen layer, the offline map instead (with a notice)
 * when its tile server does not answer, and a menu offering every base layer of this install.
 */
export class BaseMap {
  private wanted: string | null = null;
  private picked: string | null = null;
  private theme: string | null = null;
  private generation = 0;
  private errors = 0;
  private notice: HTMLElement | null = null;
  private select: HTMLSelectElement | null = null;
  /** The room's own base maps, offered above the install's. */
  private roomLayers: BaseLayer[] = [];

  private styleReady = false;
  private waiting: BaseLayer | null = null;
  /** What is drawn now (layer and theme): asked again, nothing is loaded again. */
  private drawn: string | null = null;
  /** The offline map's data waits for this (`after`). */
  private contentFirst: Promise<void> = Promise.resolve();

  constructor(private readonly map: MapLibreMap) {
    map.on('error', this.onError);
    this.styleReady = map.isStyleLoaded() === true;
    map.once('style.load', () => {
      this.styleReady = true;
      if (this.waiting) this.draw(this.waiting);
      this.waiting = null;
    });
  }

  /** The room's (or slide's) base layer; a layer the viewer picked in the menu stays until this changes. */
  show(id: string | null, theme: string | null) {
    if (id !== this.wanted) this.picked = null;
    this.wanted = id;
    this.theme = theme;
    void this.apply(this.layerFor(this.picked ?? id));
  }

  /**
   * The room's own base maps (its answers' `basemaps`, changed live): the menu offers them, and
   * the one shown is drawn again when its address changed, or left when it was removed.
   */
  setRoomBasemaps(basemaps: readonly RoomBasemap[]) {
    const layers = basemaps.map(roomBaseLayer);
    if (JSON.stringify(layers) === JSON.stringify(this.roomLayers)) return;
    this.roomLayers = layers;
    if (this.picked && !this.offered().some((layer) => layer.id === this.picked)) this.picked = null;
    this.fillMenu();
    void this.apply(this.layerFor(this.picked ?? this.wanted));
  }

  private offered(): BaseLayer[] {
    return [...this.roomLayers, ...baseLayers()];
  }

  /** The layer of an id: a room's or the install's, else the install's first. */
  private layerFor(id: string | null): BaseLayer {
    return this.roomLayers.find((layer) => layer.id === id) ?? baseLayerFor(id);
  }

  /** The menu's options: the room's base maps (a group of their own) above the install's. */
  private fillMenu() {
    const { select } = this;
    if (!select) return;
    const option = (layer: BaseLayer) => new Option(layer.name, layer.id);
    const install = baseLayers().map(option);
    if (this.roomLayers.length === 0) select.replaceChildren(...install);
    else {
      const room = document.createElement('optgroup');
      room.label = t('room:baseMap.roomGroup');
      room.append(...this.roomLayers.map(option));
      const others = document.createElement('optgroup');
      others.label = t('room:baseMap.installGroup');
      others.append(...install);
      select.replaceChildren(room, others);
    }
    const shown = this.map.getContainer().dataset.baseMap;
    if (shown) select.value = shown;
  }

  /**
   * The offline map's land and borders wait until `drawn` resolves (the page's content is on
   * the map, or the page's opening has waited long enough for it: opening.ts): converting and
   * cutting the world's coastlines takes the main thread and MapLibre's one worker longer than
   * the content itself, and would hold the room's markers or a slide back. Until then the
   * background is plain.
   */
  after(drawn: Promise<void>) {
    this.contentFirst = drawn;
  }

  /** The menu of base layers, a MapLibre control. */
  control(): IControl {
    return {
      onAdd: () => {
        const box = document.createElement('div');
        box.className = 'maplibregl-ctrl maplibregl-ctrl-group base-map-menu';
        const select = document.createElement('select');
        select.setAttribute('aria-label', t('room:baseMap.label'));
        select.addEventListener('change', () => {
          this.picked = select.value;
          this.hideNotice();
          void this.apply(this.layerFor(select.value));
        });
        this.select = select;
        this.fillMenu();
        box.append(select);
        return box;
      },
      onRemove: () => this.select?.parentElement?.remove(),
    };
  }

  private async apply(layer: BaseLayer): Promise<void> {
    const generation = ++this.generation;
    if (layer.tiles && (dead.has(layer.tiles) || !(await probe(layer.tiles)))) {
      if (generation !== this.generation) return;
      dead.add(layer.tiles);
      this.showNotice(t('room:baseMap.noAnswer', { name: layer.name }));
      return this.apply(baseLayers().find((l) => l.vector) ?? baseLayerFor('blank'));
    }
    if (generation !== this.generation) return;
    this.draw(layer);
  }

  private draw(layer: BaseLayer) {
    const { map } = this;
    // Until the style's first load nothing can be added; later, sources still loading do not matter.
    if (!this.styleReady) {
      this.waiting = layer;
      return;
    }
    const drawing = `${layer.id} ${layer.tiles} ${this.theme}`;
    if (drawing === this.drawn) return;
    this.drawn = drawing;
    for (const id of BASE_IDS) if (map.getLayer(id)) map.removeLayer(id);
    for (const id of ['base', 'base-offline']) if (map.getSource(id)) map.removeSource(id);
    this.errors = 0;
    const colours = offlineColours(this.theme);
    const plain = this.theme === 'dark' ? '#1d2026' : '#eef0ee';
    map.setPaintProperty('background', 'background-color', plain);
    const before = map.getStyle().layers.find((l) => l.id !== 'background' && !BASE_IDS.includes(l.id))?.id;
    if (layer.tiles) {
      map.addSource('base', {
        type: 'raster',
        tiles: [layer.tiles],
        ...(layer.scheme && { scheme: layer.scheme }),
        tileSize: 256,
        attribution: layer.attribution,
        maxzoom: 19,
      });
      map.addLayer({ id: 'base', type: 'raster', source: 'base' }, before);
    } else if (layer.vector) {
      const empty: GeoJSON.FeatureCollection = { type: 'FeatureCollection', features: [] };
      map.addSource('base-offline', {
        type: 'geojson',
        data: empty,
        attribution: layer.attribution,
        maxzoom: OFFLINE_MAXZOOM,
      });
      map.addSource('base', { type: 'geojson', data: empty, maxzoom: OFFLINE_MAXZOOM });
      map.addLayer(
        { id: 'base-land', type: 'fill', source: 'base-offline', paint: { 'fill-color': colours.land } },
        before,
      );
      map.addLayer(
        { id: 'base-coast', type: 'line', source: 'base-offline', paint: { 'line-color': colours.coast } },
        before,
      );
      map.addLayer(
        {
          id: 'base-borders',
          type: 'line',
          source: 'base',
          paint: { 'line-color': colours.borders, 'line-dasharray': [3, 2] },
        },
        before,
      );
      const generation = this.generation;
      const url = layer.vector;
      this.contentFirst
        .then(() => loadOffline(url))
        .then(
          ({ land, borders }) => {
            if (generation !== this.generation) return;
            this.seaWhenLandDrawn(generation, colours.sea);
            (map.getSource('base-offline') as GeoJSONSource | undefined)?.setData(land);
            (map.getSource('base') as GeoJSONSource | undefined)?.setData(borders);
          },
          () => this.showNotice(t('room:baseMap.notLoaded')),
        );
    }
    map.getContainer().dataset.baseMap = layer.id;
    if (this.select) this.select.value = layer.id;
  }

  /** The sea's colour once the land is drawn over it (not before: a blue flash over what is land). */
  private seaWhenLandDrawn(generation: number, sea: string) {
    const { map } = this;
    // A tile of the land loaded (not the source's own events, which come before the worker has cut any).
    const check = (event: { sourceId?: string; tile?: unknown }) => {
      if (event.sourceId !== 'base-offline' || !event.tile || !map.isSourceLoaded('base-offline')) return;
      map.off('sourcedata', check);
      if (generation === this.generation) map.setPaintProperty('background', 'background-color', sea);
    };
    map.on('sourcedata', check);
  }

  /** A tile server that answered the probe and then fails: after a few tiles, the offline map for the rest of the page. */
  private readonly onError = (event: object) => {
    const source = (event as { sourceId?: string }).sourceId === 'base' ? this.map.getSource('base') : undefined;
    if (source?.type !== 'raster' || ++this.errors < MAX_TILE_ERRORS) return;
    const tiles = (source.serialize() as { tiles?: string[] }).tiles?.[0];
    if (tiles) dead.add(tiles);
    void this.apply(this.layerFor(this.picked ?? this.wanted));
  };

  private showNotice(text: string) {
    if (!this.notice) {
      this.notice = document.createElement('div');
      this.notice.className = 'map-notice';
      this.notice.setAttribute('role', 'status');
      this.notice.dataset.testid = 'base-map-notice';
      this.map.getContainer().append(this.notice);
    }
    this.notice.replaceChildren(text, ' ');
    const close = document.createElement('button');
    close.type = 'button';
    close.textContent = t('room:baseMap.dismiss');
    close.addEventListener('click', () => this.hideNotice());
    this.notice.append(close);
  }

  private hideNotice() {
    this.notice?.remove();
    this.notice = null;
  }

  remove() {
    this.generation++;
    this.map.off('error', this.onError);
    this.hideNotice();
  }
}
