import { Type } from 'typebox';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** The fields a caller may write, with their rules (decisions.md, Markers). */
export const MarkerFields = {
  latitude: Type.Number({ minimum: -90, maximum: 90 }),
  longitude: Type.Number({ minimum: -180, maximum: 180 }),
  title: Type.String({ maxLength: 200, pattern: '^[^\\r\\n]*$', description: 'No newline characters' }),
  description: nullable(Type.String({ maxLength: 10_000 })),
  color: Type.String({ pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$', examples: ['#e74c3c'] }),
  tags: nullable(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
  eventDate: nullable(Type.Integer({ description: 'Epoch milliseconds' })),
  markerIconId: nullable(Type.String({ minLength: 1, maxLength: 100 })),
  markerIconSize: nullable(Type.Integer({ minimum: 8, maximum: 256 })),
  imageKey: nullable(Type.String({ maxLength: 200 })),
  thumbnailKey: nullable(Type.String({ maxLength: 200 })),
  embeddedMediaUrl: nullable(Type.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$' })),
  mediaSize: nullable(Type.Enum(['sm', 'md', 'lg'])),
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

const ImageMeta = nullable(
  Type.Object({
    takenAt: Type.Optional(nullable(Type.Number())),
    camera: Type.Optional(nullable(Type.Object({ make: Type.Optional(nullable(Type.String())), model: Type.Optional(nullable(Type.String())) }))),
    gps: Type.Optional(
      nullable(Type.Object({ latitude: Type.Number(), longitude: Type.Number(), altitude: Type.Optional(nullable(Type.Number())) })),
    ),
  }),
);

/** A marker as answered; a write-only caller gets `id` and the fields it sent. */
export const Marker = Type.Object({
  id: Type.String({ description: '`marker-<suffix>`' }),
  latitude: Type.Optional(Type.Number()),
  longitude: Type.Optional(Type.Number()),
  title: Type.Optional(nullable(Type.String())),
  description: Type.Optional(nullable(Type.String())),
  color: Type.Optional(nullable(Type.String())),
  tags: Type.Optional(nullable(Type.Array(Type.String()))),
  eventDate: Type.Optional(nullable(Type.Integer())),
  markerIconId: Type.Optional(nullable(Type.String())),
  markerIconSize: Type.Optional(nullable(Type.Integer())),
  imageKey: Type.Optional(nullable(Type.String())),
  thumbnailKey: Type.Optional(nullable(Type.String())),
  imageMeta: Type.Optional(ImageMeta),
  embeddedMediaUrl: Type.Optional(nullable(Type.String())),
  mediaSize: Type.Optional(nullable(Type.String())),
  createdBy: Type.Optional(Type.String()),
  createdAt: Type.Optional(Type.Integer()),
  updatedAt: Type.Optional(Type.Integer()),
});

export const MarkerReply = Type.Object({ success: Type.Boolean(), marker: Marker });
export const MarkerList = Type.Object({ count: Type.Integer(), markers: Type.Array(Marker) });
export const DeleteReply = Type.Object({ success: Type.Boolean(), markerId: Type.String() });
