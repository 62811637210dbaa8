import { Type, type Static } from 'typebox';
import { BaseLayer, MapView } from '../../http/schemas.js';
import { Nullable } from '../../schema-types.js';
import { ContentCounts } from '../domain/room-content.js';

export const Theme = Type.Enum(['light', 'dark']);

export const CreateRoomBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    isPublic: Type.Optional(Type.Boolean()),
    defaultView: Type.Optional(Nullable(MapView)),
    defaultTheme: Type.Optional(Nullable(Theme)),
    defaultBaseLayer: Type.Optional(Nullable(BaseLayer)),
  },
  { additionalProperties: false },
);
export type CreateRoomInput = Static<typeof CreateRoomBody>;

export const CreateRoomReply = Type.Object({
  success: Type.Boolean(),
  room: Type.Object({ roomId: Type.String(), createdBy: Type.String(), createdAt: Type.Integer() }),
  isNewRoom: Type.Boolean(),
});

/**
 * The room's name and description, which the owner may change after creating the room
 * (docs/decisions.md, Rooms). The name is stored trimmed and must keep a non-blank character;
 * a null description clears it.
 */
export const RoomDetailsBody = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Stored trimmed; must hold a non-blank character' }),
    ),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false },
);
export type RoomDetailsInput = Static<typeof RoomDetailsBody>;
export const RoomDetailsReply = Type.Object({
  success: Type.Boolean(),
  room: Type.Object({ roomId: Type.String(), name: Nullable(Type.String()), description: Nullable(Type.String()) }),
});

export const VisibilityBody = Type.Object({ isPublic: Type.Boolean() }, { additionalProperties: false });

/** The camera settings as stored and answered; the PATCH body sends any of them. */
export const CameraSettings = Type.Object({
  autoZoomEnabled: Type.Boolean(),
  defaultView: Nullable(MapView),
  defaultTheme: Nullable(Theme),
  defaultBaseLayer: Nullable(BaseLayer),
});
export type CameraSettings = Static<typeof CameraSettings>;
export const CameraBody = Type.Partial(CameraSettings, { additionalProperties: false });
export type CameraInput = Static<typeof CameraBody>;
export const CameraReply = Type.Object({ success: Type.Boolean(), settings: CameraSettings });

/** Timeline settings as stored (every field present); the PATCH body sends any of them. */
export const TimelineSettings = Type.Object({
  groupingMode: Type.Enum(['none', 'day', 'month', 'year']),
  showMarkersOnly: Type.Boolean(),
  showAdditionsOnly: Type.Boolean(),
  dateDisplayMode: Type.Enum(['event', 'creation']),
  dateTimeFormat: Type.Enum(['dmy', 'mdy', 'iso']),
  sliderMode: Type.Enum(['past', 'current', 'future']),
});
export type TimelineSettings = Static<typeof TimelineSettings>;
export const TimelineBody = Type.Partial(TimelineSettings, { additionalProperties: false });
export const TimelineReply = Type.Object({ success: Type.Boolean(), settings: TimelineSettings });

/** A room base map's kind: raster tiles addressed by z/x/y, a WMTS RESTful (or KVP) template, or a WMS GetMap. */
export const BasemapType = Type.Enum(['xyz', 'wmts', 'wms']);

/**
 * A base map the room's owner adds to the room's base-map menu (docs/decisions.md, Room base
 * maps). The browser fetches its tiles; the service only checks the address's form.
 */
export const RoomBasemap = Type.Object(
  {
    id: Type.String({
      pattern: '^[a-z0-9][a-z0-9_-]{0,39}$',
      description: 'Unique in the room: 1 to 40 lower-case letters, digits, - and _, starting with a letter or digit',
    }),
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'Shown in the base-map menu' }),
    type: BasemapType,
    url: Type.String({
      minLength: 1,
      maxLength: 2000,
      pattern: '^https?://\\S+$',
      description:
        'http or https. xyz: a template with {z}, {x} and {y} (or {-y}); wmts: a template with {TileMatrix}, ' +
        '{TileRow} and {TileCol} of a GoogleMapsCompatible (EPSG:3857) tile matrix set; wms: the service address ' +
        '(the page adds the GetMap parameters)',
    }),
    attribution: Type.String({
      maxLength: 300,
      pattern: '^[^\\u0000-\\u001f]*$',
      description: 'Plain text shown with the map, one line (no HTML)',
    }),
    layers: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', description: 'wms only (and required): LAYERS' }),
    ),
  },
  { additionalProperties: false },
);
export type RoomBasemap = Static<typeof RoomBasemap>;
/** Room base maps a room may have. */
export const MAX_ROOM_BASEMAPS = 20;
export const RoomBasemaps = Type.Array(RoomBasemap, { maxItems: MAX_ROOM_BASEMAPS });
export const BasemapsBody = Type.Object({ basemaps: RoomBasemaps }, { additionalProperties: false });
export type BasemapsInput = Static<typeof BasemapsBody>;
export const BasemapsReply = Type.Object({ success: Type.Boolean(), basemaps: RoomBasemaps });

const Info = Type.Object({
  roomId: Type.String(),
  name: Nullable(Type.String()),
  isPublic: Type.Boolean(),
  presentationIsPublic: Type.Boolean(),
  autoZoomEnabled: Type.Boolean(),
  defaultViewLat: Nullable(Type.Number()),
  defaultViewLng: Nullable(Type.Number()),
  defaultViewZoom: Nullable(Type.Number()),
  defaultTheme: Nullable(Type.String()),
  defaultBaseLayer: Nullable(Type.String()),
  basemaps: RoomBasemaps,
});

export const InfoReply = Type.Object({
  ...Type.Partial(Info).properties,
  roomId: Type.String(),
  requiresAuth: Type.Boolean({
    description: 'true for a private room the caller may not see; then only roomId is given',
  }),
});

/** The room's settings after a change, as `room.updated` carries them to history and live clients. */
export const RoomSettings = Type.Object({
  ...Info.properties,
  requiresAuth: Type.Boolean(),
  description: Nullable(Type.String()),
  timelineSettings: TimelineSettings,
});

export const MetadataReply = Type.Object({
  ...Info.properties,
  description: Nullable(Type.String()),
  createdBy: Type.String(),
  createdAt: Type.Integer(),
  timelineSettings: TimelineSettings,
  counts: Type.Object({ ...ContentCounts.properties, members: Type.Integer() }),
  userRole: Type.Optional(Type.String({ description: 'Members only' })),
  hasAccess: Type.Optional(Type.Boolean({ description: 'Members only' })),
});

export const PermissionQuery = Type.Object({
  action: Type.Enum(['view', 'edit', 'delete', 'invite', 'manage_members', 'delete_room']),
});
export type PermissionAction = Static<typeof PermissionQuery>['action'];
export const PermissionReply = Type.Object({ hasPermission: Type.Boolean(), role: Type.String() });

export const ClearReply = Type.Object({ success: Type.Boolean(), removed: ContentCounts });

export const RoomList = Type.Object({
  rooms: Type.Array(
    Type.Object({
      roomId: Type.String(),
      role: Type.String(),
      name: Nullable(Type.String()),
      createdAt: Type.Integer(),
      isPublic: Type.Boolean(),
    }),
  ),
});

/** `PUT /api/rooms/:roomId/owner`: the member who becomes the owner. */
export const OwnerBody = Type.Object(
  { userId: Type.String({ minLength: 1, maxLength: 255, description: 'The user id of a member of the room' }) },
  { additionalProperties: false },
);
