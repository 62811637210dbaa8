import { Type, type Static } from 'typebox';
import { RoomId } from '../../http/schemas.js';

/**
 * OGC API – Features (Part 1: core, GeoJSON, OpenAPI 3.0) for a room: the documents' schemas
 * and the query of `/items`. The documents follow the standard's own schemas
 * (http://schemas.opengis.net/ogcapi/features/part1/1.0/openapi/schemas/).
 */

/** At most this many features in one page of `/items`; a larger `limit` is served as this. */
export const MAX_ITEMS_LIMIT = 10_000;
export const DEFAULT_ITEMS_LIMIT = 100;

export const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';

export const CONFORMANCE_CLASSES = [
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
  'http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/create-replace-delete',
  'http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/update',
  'http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/optimistic-locking-etags',
];

export const OgcParams = Type.Object({ roomId: RoomId });
const CollectionId = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    '`markers`, `drawings` (all), `drawings-points`, `drawings-lines`, `drawings-polygons`, or a vector layer id (`layer-…`)',
});
export const CollectionParams = Type.Object({ roomId: RoomId, collectionId: CollectionId });
export const FeatureParams = Type.Object({
  roomId: RoomId,
  collectionId: CollectionId,
  featureId: Type.String({ minLength: 1, maxLength: 100 }),
});

/** The query parameters `/items` knows; any other is a property filter (layers) or refused. */
export const ITEMS_PARAMETERS = ['limit', 'bbox', 'bbox-crs', 'datetime', 'cursor', 'f'] as const;

export const ItemsQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: DEFAULT_ITEMS_LIMIT,
        description: `Features per page, default ${DEFAULT_ITEMS_LIMIT}; above ${MAX_ITEMS_LIMIT} a page has ${MAX_ITEMS_LIMIT}`,
      }),
    ),
    bbox: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'minLon,minLat,maxLon,maxLat in CRS84 (6 numbers with heights are taken without them); features whose bbox meets it',
      }),
    ),
    'bbox-crs': Type.Optional(
      Type.String({ maxLength: 200, description: `Only ${CRS84}; any other CRS is refused (400)` }),
    ),
    datetime: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'Markers only: an RFC 3339 instant or interval (`a/b`, `../b`, `a/..`) that the marker `eventDate` falls in',
      }),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 300, description: 'Where a `next` link continues (opaque)' })),
    f: Type.Optional(Type.Enum(['json', 'geojson'], { description: 'Only GeoJSON is served' })),
  },
  {
    additionalProperties: Type.String({ maxLength: 1000 }),
    description: "Any other parameter names a vector layer's recorded field: features whose property equals the value",
  },
);
export type ItemsQuery = Static<typeof ItemsQuery>;

export const Link = Type.Object({
  href: Type.String(),
  rel: Type.String(),
  type: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
});
export type Link = Static<typeof Link>;

export const LandingPage = Type.Object({
  title: Type.String(),
  description: Type.String(),
  links: Type.Array(Link),
});

export const Conformance = Type.Object({ conformsTo: Type.Array(Type.String()) });

const Extent = Type.Object({
  spatial: Type.Optional(
    Type.Object({ bbox: Type.Array(Type.Array(Type.Number(), { minItems: 4, maxItems: 4 })), crs: Type.String() }),
  ),
  temporal: Type.Optional(
    Type.Object({
      interval: Type.Array(Type.Array(Type.Union([Type.String(), Type.Null()]), { minItems: 2, maxItems: 2 })),
      trs: Type.String(),
    }),
  ),
});

export const Collection = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  links: Type.Array(Link),
  extent: Type.Optional(Extent),
  itemType: Type.Literal('feature'),
  crs: Type.Array(Type.String()),
});
export type Collection = Static<typeof Collection>;
export type Extent = Static<typeof Extent>;

export const Collections = Type.Object({ links: Type.Array(Link), collections: Type.Array(Collection) });

const Properties = Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.Unknown(), { maxProperties: 500 });

/** A feature as OGC API Part 4 creates or replaces it (GeoJSON; other members, such as an id, are ignored). */
export const ItemBody = Type.Object(
  {
    type: Type.Literal('Feature'),
    geometry: Type.Unknown(),
    properties: Type.Optional(Type.Union([Properties, Type.Null()])),
  },
  { additionalProperties: true },
);

/** A partial feature (Part 4's update): its geometry and/or the properties to change (null removes one). */
export const ItemPatchBody = Type.Object(
  { geometry: Type.Optional(Type.Unknown()), properties: Type.Optional(Properties) },
  { additionalProperties: true },
);
