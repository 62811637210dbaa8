import { Type } from 'typebox';
import { Nullable } from '../../http/schemas.js';
import { BASE_LAYERS, THEMES } from './rooms.presenter.js';

const literals = <T extends string>(values: readonly T[]) => Type.Enum([...values]);

export const View = Type.Object(
  {
    lat: Type.Number({ minimum: -90, maximum: 90 }),
    lng: Type.Number({ minimum: -180, maximum: 180 }),
    zoom: Type.Number({ minimum: 0, maximum: 24 }),
  },
  { additionalProperties: false },
);

const Theme = literals(THEMES);
const BaseLayer = literals(BASE_LAYERS);

export const CreateRoomBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    isPublic: Type.Optional(Type.Boolean()),
    defaultView: Type.Optional(Nullable(View)),
    defaultTheme: Type.Optional(Nullable(Theme)),
    defaultBaseLayer: Type.Optional(Nullable(BaseLayer)),
  },
  { additionalProperties: false },
);

export const CreateRoomReply = Type.Object({
  success: Type.Boolean(),
  room: Type.Object({ roomId: Type.String(), createdBy: Type.String(), createdAt: Type.Integer() }),
  isNewRoom: Type.Boolean(),
});

export const VisibilityBody = Type.Object({ isPublic: Type.Boolean() }, { additionalProperties: false });

export const CameraBody = Type.Object(
  {
    autoZoomEnabled: Type.Optional(Type.Boolean()),
    defaultView: Type.Optional(Nullable(View)),
    defaultTheme: Type.Optional(Nullable(Theme)),
    defaultBaseLayer: Type.Optional(Nullable(BaseLayer)),
  },
  { additionalProperties: false },
);

const CameraSettings = Type.Object({
  autoZoomEnabled: Type.Boolean(),
  defaultView: Nullable(View),
  defaultTheme: Nullable(Type.String()),
  defaultBaseLayer: Nullable(Type.String()),
});

export const TimelineBody = Type.Object(
  {
    groupingMode: Type.Optional(literals(['none', 'day', 'month', 'year'])),
    showMarkersOnly: Type.Optional(Type.Boolean()),
    showAdditionsOnly: Type.Optional(Type.Boolean()),
    dateDisplayMode: Type.Optional(literals(['event', 'creation'])),
    dateTimeFormat: Type.Optional(literals(['dmy', 'mdy', 'iso'])),
    sliderMode: Type.Optional(literals(['past', 'current', 'future'])),
  },
  { additionalProperties: false },
);

const TimelineSettings = Type.Object({
  groupingMode: Type.String(),
  showMarkersOnly: Type.Boolean(),
  showAdditionsOnly: Type.Boolean(),
  dateDisplayMode: Type.String(),
  dateTimeFormat: Type.String(),
  sliderMode: Type.String(),
});

export const CameraReply = Type.Object({ success: Type.Boolean(), settings: CameraSettings });
export const TimelineReply = Type.Object({ success: Type.Boolean(), settings: TimelineSettings });

const InfoFields = {
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
};

export const InfoReply = Type.Object({
  ...Object.fromEntries(Object.entries(InfoFields).map(([k, v]) => [k, k === 'roomId' ? v : Type.Optional(v)])),
  requiresAuth: Type.Boolean({ description: 'true for a private room the caller may not see; then only roomId is given' }),
});

const Counts = Type.Object({
  markers: Type.Integer(),
  layers: Type.Integer(),
  rasterLayers: Type.Integer(),
  drawings: Type.Integer(),
  comments: Type.Integer(),
  members: Type.Integer(),
  slides: Type.Integer(),
});

export const MetadataReply = Type.Object({
  ...InfoFields,
  description: Nullable(Type.String()),
  createdBy: Type.String(),
  createdAt: Type.Integer(),
  timelineSettings: TimelineSettings,
  counts: Counts,
  userRole: Type.Optional(Type.String({ description: 'Members only' })),
  hasAccess: Type.Optional(Type.Boolean({ description: 'Members only' })),
});

export const PermissionQuery = Type.Object({
  action: literals(['view', 'edit', 'delete', 'invite', 'manage_members', 'delete_room']),
});
export const PermissionReply = Type.Object({ hasPermission: Type.Boolean(), role: Type.String() });

const Removed = Type.Object(
  Object.fromEntries(['markers', 'layers', 'rasterLayers', 'drawings', 'comments', 'slides'].map((k) => [k, Type.Integer()])),
);
export const ClearReply = Type.Object({ success: Type.Boolean(), removed: Removed });

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
