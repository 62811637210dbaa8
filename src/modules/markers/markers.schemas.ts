import { Type } from 'typebox';
import { Nullable, HexColor } from '../../http/schemas.js';


/** The fields a caller may write, with their rules (decisions.md, Markers). */
export const MarkerFields = {
  latitude: Type.Number({ minimum: -90, maximum: 90 }),
  longitude: Type.Number({ minimum: -180, maximum: 180 }),
  title: Type.String({ maxLength: 200, pattern: '^[^\\r\\n]*$', description: 'No newline characters' }),
  description: Nullable(Type.String({ maxLength: 10_000 })),
  color: HexColor,
  tags: Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
  eventDate: Nullable(Type.Integer({ description: 'Epoch milliseconds' })),
  markerIconId: Nullable(Type.String({ minLength: 1, maxLength: 100 })),
  markerIconSize: Nullable(Type.Integer({ minimum: 8, maximum: 256 })),
  imageKey: Nullable(Type.String({ maxLength: 200 })),
  thumbnailKey: Nullable(Type.String({ maxLength: 200 })),
  embeddedMediaUrl: Nullable(Type.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$' })),
  mediaSize: Nullable(Type.Enum(['sm', 'md', 'lg'])),
};

export type MarkerField = keyof typeof MarkerFields;
export const WRITABLE_FIELDS = new Set(Object.keys(MarkerFields));

/** Fields that can be changed but never cleared with null. */
export const NOT_CLEARABLE: ReadonlySet<string> = new Set(['latitude', 'longitude', 'title', 'color']);

const optional = Object.fromEntries(Object.entries(MarkerFields).map(([k, v]) => [k, Type.Optional(v)]));

export const CreateMarkerBody = Type.Object(
  { ...optional, latitude: MarkerFields.latitude, longitude: MarkerFields.longitude },
  { additionalProperties: false },
);

export const PatchMarkerBody = Type.Object(
  {
    ...optional,
    latitude: Type.Optional(MarkerFields.latitude),
    longitude: Type.Optional(MarkerFields.longitude),
    title: Type.Optional(MarkerFields.title),
    color: Type.Optional(MarkerFields.color),
  },
  { additionalProperties: false, minProperties: 1 },
);

export type MarkerInput = Partial<{
  latitude: number;
  longitude: number;
  title: string;
  description: string | null;
  color: string;
  tags: string[] | null;
  eventDate: number | null;
  markerIconId: string | null;
  markerIconSize: number | null;
  imageKey: string | null;
  thumbnailKey: string | null;
  embeddedMediaUrl: string | null;
  mediaSize: 'sm' | 'md' | 'lg' | null;
}>;

export const ImageMetaSchema = Type.Object(
  {
    takenAt: Nullable(Type.Number({ description: 'DateTimeOriginal as epoch milliseconds' })),
    camera: Nullable(Type.Object({ make: Nullable(Type.String()), model: Nullable(Type.String()) })),
    gps: Nullable(
      Type.Object({
        latitude: Type.Number({ description: 'Signed decimal degrees' }),
        longitude: Type.Number({ description: 'Signed decimal degrees' }),
        altitude: Nullable(Type.Number({ description: 'Metres; negative below sea level' })),
      }),
    ),
  },
  { description: "The photo's provenance read from its EXIF; the stored copy carries none" },
);

/** A marker as answered; a write-only caller gets `id` and the fields it sent. */
export const Marker = Type.Object({
  id: Type.String({ description: '`marker-<suffix>`' }),
  latitude: Type.Optional(Type.Number()),
  longitude: Type.Optional(Type.Number()),
  title: Type.Optional(Nullable(Type.String())),
  description: Type.Optional(Nullable(Type.String())),
  color: Type.Optional(Nullable(Type.String())),
  tags: Type.Optional(Nullable(Type.Array(Type.String()))),
  eventDate: Type.Optional(Nullable(Type.Integer())),
  markerIconId: Type.Optional(Nullable(Type.String())),
  markerIconSize: Type.Optional(Nullable(Type.Integer())),
  imageKey: Type.Optional(Nullable(Type.String())),
  thumbnailKey: Type.Optional(Nullable(Type.String())),
  imageMeta: Type.Optional(Nullable(ImageMetaSchema)),
  embeddedMediaUrl: Type.Optional(Nullable(Type.String())),
  mediaSize: Type.Optional(Nullable(Type.String())),
  createdBy: Type.Optional(Type.String()),
  createdAt: Type.Optional(Type.Integer()),
  updatedAt: Type.Optional(Type.Integer()),
});

export const MarkerReply = Type.Object({ success: Type.Boolean(), marker: Marker });
export const MarkerList = Type.Object({ count: Type.Integer(), markers: Type.Array(Marker) });
export const DeleteReply = Type.Object({ success: Type.Boolean(), markerId: Type.String() });
