import type { RoomRow } from '../../db/tables.js';
import { basemapsOf } from './room-basemaps.js';
import type { CameraSettings, TimelineSettings } from './rooms.schemas.js';

export const TIMELINE_DEFAULTS: TimelineSettings = {
  groupingMode: 'none',
  showMarkersOnly: false,
  showAdditionsOnly: false,
  dateDisplayMode: 'event',
  dateTimeFormat: 'iso',
  sliderMode: 'current',
};

export function timelineSettings(row: RoomRow): TimelineSettings {
  return {
    ...TIMELINE_DEFAULTS,
    ...(row.timeline_settings ? (JSON.parse(row.timeline_settings) as Partial<TimelineSettings>) : {}),
  };
}

export function cameraSettings(row: RoomRow): CameraSettings {
  const hasView = row.default_view_lat !== null && row.default_view_lng !== null && row.default_view_zoom !== null;
  return {
    autoZoomEnabled: row.auto_zoom_enabled === 1,
    defaultView: hasView
      ? { lat: row.default_view_lat!, lng: row.default_view_lng!, zoom: row.default_view_zoom! }
      : null,
    defaultTheme: row.default_theme as CameraSettings['defaultTheme'],
    defaultBaseLayer: row.default_base_layer as CameraSettings['defaultBaseLayer'],
  };
}

/** The display settings anyone who may see the room gets from `/info`. */
export function presentInfo(row: RoomRow) {
  return {
    roomId: row.id,
    name: row.name,
    requiresAuth: false,
    isPublic: row.is_public === 1,
    presentationIsPublic: row.presentation_is_public === 1,
    autoZoomEnabled: row.auto_zoom_enabled === 1,
    defaultViewLat: row.default_view_lat,
    defaultViewLng: row.default_view_lng,
    defaultViewZoom: row.default_view_zoom,
    defaultTheme: row.default_theme,
    defaultBaseLayer: row.default_base_layer,
    basemaps: basemapsOf(row.basemaps),
  };
}

/**
 * The room's settings after a change, as `room.updated` carries them to history and live
 * clients: what `/info` gives a member, plus the description and the timeline settings
 * (which `/info` does not show), so that every setting a change can touch is there.
 */
export function presentSettings(row: RoomRow) {
  return { ...presentInfo(row), description: row.description, timelineSettings: timelineSettings(row) };
}

/** The room record as room metadata shows it. */
export function presentRoom(row: RoomRow) {
  const { requiresAuth: _, ...info } = presentInfo(row);
  return {
    ...info,
    description: row.description,
    createdBy: row.created_by,
    createdAt: row.created_at,
    timelineSettings: timelineSettings(row),
  };
}

/** A room in the caller's list of rooms. */
export const presentMyRoom = (r: {
  id: string;
  name: string | null;
  created_at: number;
  is_public: number;
  role: string;
}) => ({
  roomId: r.id,
  role: r.role,
  name: r.name,
  createdAt: r.created_at,
  isPublic: r.is_public === 1,
});
