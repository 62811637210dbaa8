import { Type, type Static } from 'typebox';

/** A feature of a vector layer, addressed by its layer and its stable id. */
export const FeatureParams = Type.Object({
  layerId: Type.String({ minLength: 1, maxLength: 100 }),
  featureId: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
});

const Geometry = Type.Unknown({
  description:
    'GeoJSON Point, LineString, Polygon, MultiPoint, MultiLineString or MultiPolygon in longitude/latitude; ' +
    'polygon rings closed, at least 4 positions',
});
const Properties = Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.Unknown(), {
  maxProperties: 500,
  description: "Values of the layer's fields, each of its field's type or null",
});

/** A new feature: geometry and properties are checked by geo/geometry.ts and geo/feature-values.ts. */
export const CreateFeatureBody = Type.Object(
  {
    type: Type.Literal('Feature'),
    geometry: Geometry,
    properties: Type.Optional(Type.Union([Properties, Type.Null()])),
  },
  { additionalProperties: false },
);
export type CreateFeatureInput = Static<typeof CreateFeatureBody>;

export const PatchFeatureBody = Type.Object(
  {
    geometry: Type.Optional(Geometry),
    properties: Type.Optional(Properties),
    ifVersion: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'The version the change is based on: 409 `version_conflict` when the feature is at another',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PatchFeatureInput = Static<typeof PatchFeatureBody>;

/** A feature as an edit answers it: GeoJSON, with its version as a top-level member. */
export const EditedFeature = Type.Object({
  type: Type.Literal('Feature'),
  id: Type.Integer(),
  version: Type.Integer({ description: 'Its edits since the layer was made: 1 for a feature as ingested or created' }),
  geometry: Type.Unknown(),
  properties: Type.Record(Type.String(), Type.Unknown()),
});
export type EditedFeature = Static<typeof EditedFeature>;

/** A feature edit as history keeps it and the live channel sends it (`feature.*`; a deletion keeps the feature as it was). */
export const FeatureChange = Type.Object({
  id: Type.String({ description: "`<layerId>:<featureId>`, the change's `objectId`" }),
  layerId: Type.String(),
  name: Type.String({ description: 'Its `name`, `title` or `label` property, else "Feature <id>"' }),
  feature: EditedFeature,
});
export type FeatureChange = Static<typeof FeatureChange>;

/** History's and the live channel's id of a feature: its layer's and its own, `<layerId>:<featureId>`. */
export const featureObjectId = (layerId: string, featureId: number) => `${layerId}:${featureId}`;
/** The layer of a feature change's object id. */
export const layerOfFeatureObject = (objectId: string) => objectId.slice(0, objectId.lastIndexOf(':'));
