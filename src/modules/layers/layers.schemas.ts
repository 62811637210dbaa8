import { Type, type Static } from 'typebox';
import { RoomId } from '../../http/schemas.js';
import { SchemaCheck } from '../../schema-problems.js';
import { Nullable } from '../../schema-types.js';
import { Field, NewField } from './layer-fields.schemas.js';

const Hex = Type.String({
  pattern: '^([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$',
  description: 'Hex digits without #',
  examples: ['3388ff'],
});
const FieldName = Type.String({ minLength: 1, maxLength: 200 });

/** Categories: one colour per value of a field (compared as text), `otherColor` for the rest. */
export const CategoriesRule = Type.Object(
  {
    type: Type.Literal('categories'),
    field: FieldName,
    categories: Type.Array(
      Type.Object({ value: Type.String({ maxLength: 500 }), color: Hex }, { additionalProperties: false }),
      {
        maxItems: 100,
      },
    ),
    otherColor: Hex,
  },
  { additionalProperties: false },
);

/** Graduated classes of a numeric field: `colors[i]` below `breaks[i]`, the last colour from the last break up. */
export const GraduatedRule = Type.Object(
  {
    type: Type.Literal('graduated'),
    field: FieldName,
    method: Type.Enum(['equal', 'quantile']),
    ramp: Type.String({ minLength: 1, maxLength: 50, description: 'A colormap name (GET /api/colormaps)' }),
    breaks: Type.Array(Type.Number(), { minItems: 1, maxItems: 20, description: 'Ascending class limits' }),
    colors: Type.Array(Hex, { minItems: 2, maxItems: 21, description: 'One more than the breaks' }),
  },
  { additionalProperties: false },
);

/** A vector layer's style (decisions: upload `style` keys, "Style by data"); colours are hex without `#`. */
export const LayerStyle = Type.Object(
  {
    color: Hex,
    opacity: Type.Number({ minimum: 0, maximum: 1 }),
    strokeWeight: Type.Number({ minimum: 0, maximum: 100 }),
    fillOpacity: Type.Number({ minimum: 0, maximum: 1 }),
    visible: Type.Boolean(),
    fillColor: Type.Optional(Nullable(Hex)),
    classify: Type.Optional(Nullable(Type.Union([CategoriesRule, GraduatedRule]))),
    labelField: Type.Optional(Nullable(FieldName)),
    order: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Place in the layer list, 0 on top' }),
    ),
  },
  { additionalProperties: false },
);
export type LayerStyle = Static<typeof LayerStyle>;
/** A style as sent: any of its keys (the others keep their value, or the default). */
export const StyleInput = Type.Partial(LayerStyle, { additionalProperties: false });
export type StyleInput = Static<typeof StyleInput>;

/** Checks a layer style (an upload's `style` field, a style restored from an export). */
export const styleCheck = new SchemaCheck(StyleInput);

export const DEFAULT_STYLE: LayerStyle = {
  color: '3388ff',
  opacity: 1,
  strokeWeight: 2,
  fillOpacity: 0.3,
  visible: true,
};

const BboxSchema = Type.Array(Type.Number(), {
  minItems: 4,
  maxItems: 4,
  description: '[minLon, minLat, maxLon, maxLat]',
});

/** A vector layer as lists and answers show it (decisions: "Vector layers in detail"). */
export const GeometryType = Type.Enum(['Point', 'LineString', 'Polygon', 'Mixed']);

/** How often a remote layer is read again, in minutes (null: only when asked). */
export const RefreshMinutes = Nullable(
  Type.Integer({
    minimum: 5,
    maximum: 10_080,
    description: 'Minutes between reads, 5 to 10,080 (a week); null: only when asked',
  }),
);

/** Where a remote layer is read from, and how its last reads went. */
export const LayerSource = Type.Object({
  url: Type.String(),
  refreshMinutes: RefreshMinutes,
  lastRefreshAt: Nullable(Type.Integer({ description: 'The last read that succeeded' })),
  lastError: Nullable(
    Type.String({ description: 'Why the last read failed (the data is the last good one); null when it did not' }),
  ),
});

export const VectorLayer = Type.Object({
  id: Type.String({ description: '`layer-<suffix>`' }),
  name: Type.String(),
  description: Nullable(Type.String()),
  featureCount: Type.Integer(),
  geometryType: Nullable(GeometryType),
  fields: Type.Array(Field, { description: 'Its fields, as `GET /api/layers/:layerId/fields` lists them' }),
  bbox: Nullable(BboxSchema),
  style: LayerStyle,
  sourceFormat: Type.Enum(['geojson', 'shapefile', 'geopackage', 'csv', 'kml', 'gpx', 'flatgeobuf', 'inline']),
  sourceCrs: Nullable(Type.String()),
  /** A remote layer's address and refreshes; null for any other layer. */
  source: Nullable(LayerSource),
  sizeBytes: Type.Integer(),
  createdBy: Type.String(),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});
export type VectorLayer = Static<typeof VectorLayer>;

export const LayerName = Type.String({ minLength: 1, maxLength: 200 });
export const Description = Type.String({ maxLength: 2000 });

/**
 * `POST /api/rooms/:roomId/layers`: a layer from GeoJSON in the body, or, without `geojson`,
 * an empty layer of a `geometryType` with `fields`.
 */
export const CreateLayerBody = Type.Object(
  {
    name: LayerName,
    description: Type.Optional(Description),
    geojson: Type.Optional(
      Type.Object(
        { type: Type.Literal('FeatureCollection'), features: Type.Array(Type.Unknown()) },
        { additionalProperties: true },
      ),
    ),
    geometryType: Type.Optional(GeometryType),
    fields: Type.Optional(Type.Array(NewField, { maxItems: 500 })),
    color: Type.Optional(LayerStyle.properties.color),
    opacity: Type.Optional(LayerStyle.properties.opacity),
    strokeWeight: Type.Optional(LayerStyle.properties.strokeWeight),
    visible: Type.Optional(LayerStyle.properties.visible),
  },
  { additionalProperties: false },
);
export type CreateLayerInput = Static<typeof CreateLayerBody>;

/** `PATCH /api/rooms/:roomId/layers/:layerId`. */
export const PatchLayerBody = Type.Object(
  {
    name: Type.Optional(LayerName),
    description: Type.Optional(Nullable(Description)),
    style: Type.Optional(StyleInput),
    refreshMinutes: Type.Optional(RefreshMinutes),
  },
  { additionalProperties: false },
);
export type PatchLayerInput = Static<typeof PatchLayerBody>;

/** `POST /api/rooms/:roomId/layers/remote`: a layer read from an address, and how often it is read again. */
export const RemoteLayerBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2000,
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$',
      description:
        'http or https: GeoJSON, CSV, KML, GPX, FlatGeobuf, an OGC API Features collection or a WFS GetFeature address; ' +
        'loopback and private addresses are refused unless OUTBOUND_ALLOW_PRIVATE=true',
    }),
    name: LayerName,
    refreshMinutes: Type.Optional(RefreshMinutes),
  },
  { additionalProperties: false },
);
export type RemoteLayerInput = Static<typeof RemoteLayerBody>;

export const LayerIdParams = Type.Object({ layerId: Type.String({ minLength: 1, maxLength: 100 }) });
export const RoomLayerParams = Type.Object({ roomId: RoomId, layerId: Type.String({ minLength: 1, maxLength: 100 }) });

export const FeaturesQuery = Type.Object({
  minLon: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  minLat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
  maxLon: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  maxLat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
  zoom: Type.Optional(Type.Number({ minimum: 0, maximum: 24 })),
});
export type FeaturesQuery = Static<typeof FeaturesQuery>;

export const TileParams = Type.Object({
  layerId: Type.String({ minLength: 1, maxLength: 100 }),
  z: Type.Integer({ minimum: 0, maximum: 22 }),
  x: Type.Integer({ minimum: 0 }),
  y: Type.Integer({ minimum: 0 }),
});

export const MAX_ATTRIBUTES_LIMIT = 500;
export const DEFAULT_ATTRIBUTES_LIMIT = 50;

/** `GET /api/layers/:layerId/attributes`: a page of the attribute table. */
export const AttributesQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_ATTRIBUTES_LIMIT,
        description: `Rows per page, default ${DEFAULT_ATTRIBUTES_LIMIT}`,
      }),
    ),
    after: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, description: 'The `next` of the previous page, as it was' }),
    ),
    sort: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'A recorded field of the layer, or `id` (the default)',
      }),
    ),
    order: Type.Optional(
      Type.Enum(['asc', 'desc'], { description: 'Default `asc`; features without a value come last' }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'A text found, case-insensitively, in any text field (a field of type `string`)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AttributesQuery = Static<typeof AttributesQuery>;

export const LayerFieldSchema = Type.Object({
  name: Type.String(),
  type: Type.Enum(['integer', 'real', 'string', 'boolean', 'date', 'datetime', 'json', 'choice']),
});

export const AttributesPage = Type.Object({
  fields: Type.Array(LayerFieldSchema, { description: "The layer's recorded fields, in the file's order" }),
  rows: Type.Array(
    Type.Object({
      id: Type.Integer({ description: "The feature's id (as in the features, tiles and OGC API)" }),
      properties: Type.Record(Type.String(), Type.Unknown()),
      bbox: BboxSchema,
    }),
  ),
  next: Nullable(
    Type.String({ description: 'Pass as `after` for the next page (same sort, order and q); null on the last page' }),
  ),
});
export type AttributesPage = Static<typeof AttributesPage>;
