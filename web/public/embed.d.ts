/** Types of Maproom's embed script (`<script src="https://your-maproom/embed.js">`), which defines `window.Maproom`. */

export type MaproomControl = 'zoom' | 'layers' | 'legend' | 'search' | 'time' | 'fullscreen';

export interface MaproomView {
  lat: number;
  lng: number;
  zoom?: number;
}

export interface MaproomEmbedOptions {
  /** The room's id (10 characters). */
  room: string;
  /** An embed key (`mre_...`) of a private room; public rooms need none. */
  key?: string;
  /** The room's published slide deck instead of its map. */
  deck?: boolean;
  /** The starting view; default: the room's own. */
  view?: Required<MaproomView>;
  /** The layers shown (ids); default: those the room shows. */
  layers?: string[];
  /** The base map's id; default: the room's own. */
  basemap?: string;
  /** The controls shown; default: zoom and fullscreen. */
  controls?: MaproomControl[];
  /** false: a still map that cannot be moved or clicked. */
  interactive?: boolean;
  /** The frame's title, for screen readers; default "Map". */
  title?: string;
  /** The frame's height (a number of pixels, or a CSS length); default: the element's. */
  height?: number | string;
}

export interface MaproomReady {
  type: 'ready';
  roomId: string;
  view: MaproomView & { bearing: number; pitch: number };
  /** The layers shown. */
  layers: string[];
}

export interface MaproomClick {
  type: 'click';
  lngLat: { lat: number; lng: number };
  /** The marker clicked, if any. */
  marker?: { id: string; title: string | null };
}

export interface MaproomViewChange {
  type: 'view';
  view: MaproomView & { bearing: number; pitch: number };
}

export interface MaproomEmbed {
  iframe: HTMLIFrameElement;
  setView(view: MaproomView): void;
  setLayers(layers: string[]): void;
  openMarker(markerId: string): void;
  on(type: 'ready', listener: (event: MaproomReady) => void): () => void;
  on(type: 'click', listener: (event: MaproomClick) => void): () => void;
  on(type: 'view', listener: (event: MaproomViewChange) => void): () => void;
  destroy(): void;
}

declare global {
  interface Window {
    Maproom: { embed(element: HTMLElement, options: MaproomEmbedOptions): MaproomEmbed; version: 1 };
  }
}
