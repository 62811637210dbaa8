// `.js`: test/web/room-model.test.ts imports this file, type-checked under NodeNext.
import type {
  Comment,
  Drawing,
  Icon,
  Layer,
  LiveChange,
  Marker,
  MarkerFeed,
  RasterLayer,
  Room,
  Slide,
} from '../api/types.js';

/** Everything of a room the page shows; each collection is replaced as a whole when it changes. */
export interface RoomState {
  room: Room;
  markers: Map<string, Marker>;
  icons: Icon[];
  layers: Layer[];
  rasters: RasterLayer[];
  drawings: Map<string, Drawing>;
  slides: Slide[];
  comments: Comment[];
  /** The last change version the page has applied (from the live channel). */
  version: number;
}

/**
 * The room's state after one change of the live channel, or `null` when the change touches
 * everything (the room cleared or imported) and the room must be loaded again. Pure: the
 * RoomModel applies it, and test/web/room-model.test.ts tests it. A change the state has
 * already seen (its version is not above the state's) changes nothing.
 */
export function applyChange(state: RoomState, change: LiveChange): RoomState | null {
  if (change.version <= state.version) return state;
  const next = changed(state, change);
  return next && { ...next, version: change.version };
}

function changed(state: RoomState, change: LiveChange): RoomState | null {
  switch (change.type) {
    case 'marker.created':
    case 'marker.updated':
      return withMarker(state, change.data);
    case 'marker.deleted':
      return withoutMarker(state, change.objectId);
    case 'drawing.created':
    case 'drawing.updated':
      return withDrawing(state, change.data);
    case 'drawing.deleted':
      return withoutDrawing(state, change.objectId);
    case 'layer.created':
      return withLayer(state, change.data);
    case 'layer.updated':
      return withUpdatedLayer(state, change.data, change.version);
    case 'layer.deleted':
      return withoutLayer(state, change.objectId);
    case 'feature.created':
      return withFeatureEdit(state, change.objectId, change.version, 1);
    case 'feature.updated':
      return withFeatureEdit(state, change.objectId, change.version, 0);
    case 'feature.deleted':
      return withFeatureEdit(state, change.objectId, change.version, -1);
    case 'rasterLayer.created':
    case 'rasterLayer.updated':
      return withRaster(state, change.data);
    case 'rasterLayer.deleted':
      return withoutRaster(state, change.objectId);
    case 'icon.created':
      return { ...state, icons: upsert(state.icons, change.data, (i) => i.iconId) };
    case 'slide.created':
    case 'slide.updated':
      return withSlide(state, change.data);
    case 'slide.deleted':
      return withoutSlide(state, change.objectId);
    case 'presentation.updated':
      return withSlideOrder(state, change.data.slideIds);
    case 'comment.created':
    case 'comment.updated':
      return withComment(state, change.data);
    case 'comment.deleted':
      return withoutComment(state, change.objectId);
    case 'reply.created':
      return withReply(state, change.data);
    case 'reply.deleted':
      return withoutReply(state, change.objectId);
    case 'room.updated': {
      const { requiresAuth: _, ...settings } = change.data;
      return { ...state, room: { ...state.room, ...settings } };
    }
    case 'member.updated':
      return state;
    case 'room.cleared':
    case 'room.imported':
      return null;
  }
}

/** The page's own writes use the same steps as the live channel's changes. */
export const withMarker = (state: RoomState, marker: Marker): RoomState => {
  const markers = new Map(state.markers);
  markers.set(marker.id, { ...markers.get(marker.id), ...marker });
  return { ...state, markers };
};
export const withoutMarker = (state: RoomState, id: string): RoomState => {
  const markers = new Map(state.markers);
  markers.delete(id);
  return { ...state, markers };
};
export const withDrawing = (state: RoomState, drawing: Drawing): RoomState => {
  const drawings = new Map(state.drawings);
  drawings.set(drawing.id, drawing);
  return { ...state, drawings };
};
export const withoutDrawing = (state: RoomState, id: string): RoomState => {
  const drawings = new Map(state.drawings);
  drawings.delete(id);
  return { ...state, drawings };
};
export const withLayer = (state: RoomState, layer: Layer): RoomState => ({
  ...state,
  layers: upsert(state.layers, layer, (l) => l.id),
});
/**
 * A layer changed (live): it keeps the address its tiles had after an edit of its features,
 * and a new one when its source was read again (a remote layer's refresh replaced its data).
 */
export const withUpdatedLayer = (state: RoomState, layer: Layer, version: number): RoomState => {
  const held = state.layers.find((l) => l.id === layer.id);
  const refreshed = held?.source && held.source.lastRefreshAt !== layer.source?.lastRefreshAt;
  const editedAt = refreshed ? version : held?.editedAt;
  return withLayer(state, editedAt === undefined ? layer : { ...layer, editedAt });
};
/**
 * A layer as the answer to the page's own write returned it: it replaces the held one unless
 * that one is newer. The answer can arrive after a later change of the same layer came through
 * the live channel (a style set by another member or a script while this page saved the layer
 * order): applied blindly, it would undo that change in this page only, for good.
 */
export const withLayerAnswer = (state: RoomState, layer: Layer): RoomState => {
  const held = state.layers.find((l) => l.id === layer.id);
  if (held && held.updatedAt > layer.updatedAt) return state;
  return withLayer(state, held?.editedAt === undefined ? layer : { ...layer, editedAt: held.editedAt });
};
/**
 * A feature of a layer (`objectId` `<layerId>:<featureId>`) was edited at room version
 * `version`: its tiles are stale, and its count changed by `added` (1 created, -1 deleted).
 */
export const withFeatureEdit = (state: RoomState, objectId: string, version: number, added: number): RoomState => {
  const layerId = objectId.slice(0, objectId.lastIndexOf(':'));
  const layer = state.layers.find((l) => l.id === layerId);
  return layer ? withLayer(state, { ...layer, editedAt: version, featureCount: layer.featureCount + added }) : state;
};
export const withoutLayer = (state: RoomState, id: string): RoomState => ({
  ...state,
  layers: state.layers.filter((l) => l.id !== id),
});
export const withRaster = (state: RoomState, raster: RasterLayer): RoomState => ({
  ...state,
  rasters: upsert(state.rasters, raster, (r) => r.id),
});
/** A raster as the answer to the page's own write returned it: as withLayerAnswer. */
export const withRasterAnswer = (state: RoomState, raster: RasterLayer): RoomState => {
  const held = state.rasters.find((r) => r.id === raster.id);
  return held && held.updatedAt > raster.updatedAt ? state : withRaster(state, raster);
};
export const withoutRaster = (state: RoomState, id: string): RoomState => ({
  ...state,
  rasters: state.rasters.filter((r) => r.id !== id),
});
export const withSlide = (state: RoomState, slide: Slide): RoomState => ({
  ...state,
  slides: upsert(state.slides, slide, (s) => s.id).sort((a, b) => a.position - b.position),
});
export const withoutSlide = (state: RoomState, id: string): RoomState => ({
  ...state,
  slides: state.slides.filter((s) => s.id !== id),
});
export const withSlideOrder = (state: RoomState, slideIds: string[]): RoomState => {
  const byId = new Map(state.slides.map((s) => [s.id, s]));
  const slides = slideIds.flatMap((id, position) => {
    const slide = byId.get(id);
    return slide ? [{ ...slide, position }] : [];
  });
  return { ...state, slides };
};
export const withComment = (state: RoomState, comment: Comment): RoomState => ({
  ...state,
  comments: upsert(state.comments, comment, (c) => c.id),
});
export const withoutComment = (state: RoomState, id: string): RoomState => ({
  ...state,
  comments: state.comments.filter((c) => c.id !== id),
});
export const withReply = (state: RoomState, reply: Comment['replies'][number]): RoomState => ({
  ...state,
  comments: state.comments.map((c) =>
    c.id === reply.commentId ? { ...c, replies: upsert(c.replies, reply, (r) => r.id) } : c,
  ),
});
export const withoutReply = (state: RoomState, id: string): RoomState => ({
  ...state,
  comments: state.comments.map((c) =>
    c.replies.some((r) => r.id === id) ? { ...c, replies: c.replies.filter((r) => r.id !== id) } : c,
  ),
});

/**
 * The room's markers as the feed gives them: id, position, colour and icon, what the map draws.
 * Their other fields come later (`withMarkerDetails`).
 */
export function markersOfFeed(feed: MarkerFeed): Map<string, Marker> {
  const markers = new Map<string, Marker>();
  feed.ids.forEach((id, i) => {
    const color = feed.colors[i];
    const icon = feed.icons[i];
    markers.set(id, {
      id,
      latitude: feed.latitudes[i],
      longitude: feed.longitudes[i],
      color: color == null ? null : feed.palette[color],
      markerIconId: icon == null ? null : feed.iconIds[icon],
      markerIconSize: feed.iconSizes[i],
    });
  });
  return markers;
}

/** Whether a marker's fields beyond the feed's have been read (every whole marker has `updatedAt`). */
export const hasDetails = (marker: Marker) => marker.updatedAt !== undefined;

/**
 * Whole markers read after the feed (the list, or one marker) filled in: a marker the state no
 * longer has stays gone, and one the state already holds whole and newer (a live change applied
 * meanwhile) stays as it is.
 */
export const withMarkerDetails = (state: RoomState, read: Marker[]): RoomState => {
  const markers = new Map(state.markers);
  for (const marker of read) {
    const held = markers.get(marker.id);
    if (!held || (hasDetails(held) && held.updatedAt! > marker.updatedAt!)) continue;
    markers.set(marker.id, marker);
  }
  return { ...state, markers };
};

function upsert<T>(list: T[], item: T, key: (x: T) => string): T[] {
  const id = key(item);
  return list.some((x) => key(x) === id) ? list.map((x) => (key(x) === id ? item : x)) : [...list, item];
}
