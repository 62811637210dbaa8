import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { HexColor, Nullable } from '../../schema-types.js';

/** The fields a caller may write, with their rules (docs/contract-decisions.md, Markers). */
export const MarkerFields = Type.Object({
  latitude: Type.Number({ minimum: -90, maximum: 90 }),
  longitude: Type.Number({ minimum: -180, maximum: 180 }),
  title: Type.String({ maxLength: 200, pattern: '^[^\\r\\n]*$', description: 'No newline characters' }),
  description: Nullable(Type.String({ maxLength: 10_000 })),
  color: HexColor,
  tags: Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
  eventDate: Nullable(
    Type.Integer({
      minimum: -8.64e15,
      maximum: 8.64e15,
      description: 'Epoch milliseconds, any time a JavaScript date can hold (as an import keeps)',
    }),
  ),
  markerIconId: Nullable(Type.String({ minLength: 1, maxLength: 100 })),
  markerIconSize: Nullable(Type.Integer({ minimum: 8, maximum: 256 })),
  imageKey: Nullable(Type.String({ maxLength: 200 })),
  thumbnailKey: Nullable(Type.String({ maxLength: 200 })),
  embeddedMediaUrl: Nullable(Type.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$' })),
  mediaSize: Nullable(Type.Enum(['sm', 'md', 'lg'])),
});

export type MarkerField = keyof Static<typeof MarkerFields>;
export const WRITABLE_FIELDS: ReadonlySet<string> = new Set(Object.keys(MarkerFields.properties));

/** Fields that can be changed but never cleared: their schema does not accept null. */
export const NOT_CLEARABLE: ReadonlySet<string> = new Set(
  Object.entries(MarkerFields.properties)
    .filter(([, schema]) => !Value.Check(schema, null))
    .map(([field]) => field),
);

export const CreateMarkerBody = Type.Object(
  {
    ...Type.Partial(MarkerFields).properties,
    latitude: MarkerFields.properties.latitude,
    longitude: MarkerFields.properties.longitude,
  },
  { additionalProperties: false },
);
export type CreateMarkerInput = Static<typeof CreateMarkerBody>;

export const PatchMarkerBody = Type.Partial(MarkerFields, { additionalProperties: false, minProperties: 1 });
export type MarkerInput = Static<typeof PatchMarkerBody>;

/** The properties a bulk-imported Point feature may carry (the interface's list). */
export const ImportedMarkerProperties = Type.Partial(
  Type.Pick(MarkerFields, [
    'title',
    'description',
    'tags',
    'eventDate',
    'imageKey',
    'thumbnailKey',
    'markerIconId',
    'markerIconSize',
  ]),
);

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
export type ImageMeta = Static<typeof ImageMetaSchema>;

/** A stored marker: a marker created without a title or colour has null there. */
const StoredMarker = Type.Object({
  ...MarkerFields.properties,
  title: Nullable(MarkerFields.properties.title),
  color: Nullable(MarkerFields.properties.color),
  imageMeta: Nullable(ImageMetaSchema),
  createdBy: Type.String(),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});
export type StoredMarker = Static<typeof StoredMarker>;

/** A marker as answered; a write-only caller gets `id` and the fields it sent. */
export const Marker = Type.Object({
  id: Type.String({ description: '`marker-<suffix>`' }),
  ...Type.Partial(StoredMarker).properties,
});

/**
 * The room's markers as columns, for a map to draw at once (docs/decisions.md, "The markers feed"):
 * entry `i` of each column belongs to the marker `ids[i]`; colours and icons are indexes into
 * `palette` and `iconIds`, null where the marker has none. The other fields are read per marker.
 */
export const MarkerFeed = Type.Object({
  count: Type.Integer({ description: 'How many markers: the length of every column' }),
  ids: Type.Array(Marker.properties.id),
  latitudes: Type.Array(MarkerFields.properties.latitude),
  longitudes: Type.Array(MarkerFields.properties.longitude),
  colors: Type.Array(Nullable(Type.Integer({ minimum: 0 })), { description: 'Index into `palette`' }),
  palette: Type.Array(MarkerFields.properties.color, { description: 'The colours the markers use, each once' }),
  icons: Type.Array(Nullable(Type.Integer({ minimum: 0 })), { description: 'Index into `iconIds`' }),
  iconIds: Type.Array(Type.String(), { description: 'The `markerIconId`s the markers use, each once' }),
  iconSizes: Type.Array(MarkerFields.properties.markerIconSize, { description: '`markerIconSize`' }),
});
export type MarkerFeed = Static<typeof MarkerFeed>;

export const MarkerReply = Type.Object({ success: Type.Boolean(), marker: Marker });
export const MarkerList = Type.Object({ count: Type.Integer(), markers: Type.Array(Marker) });
export const DeleteReply = Type.Object({ success: Type.Boolean(), markerId: Type.String() });
