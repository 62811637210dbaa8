import { Type, type Static } from 'typebox';
import { HexColor, Nullable } from '../../schema-types.js';

export const DrawingStyle = Type.Object(
  {
    color: Type.Optional(HexColor),
    fillColor: Type.Optional(HexColor),
    opacity: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    strokeWeight: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  },
  { additionalProperties: false },
);

const Geometry = Type.Unknown({
  description: 'GeoJSON Point, LineString or Polygon in longitude/latitude; polygon rings closed, at least 4 positions',
});

/** The fields a caller writes; geometry is checked by geo/geometry.ts (its rules are not a schema's). */
const DrawingFields = Type.Object({
  geometry: Geometry,
  label: Nullable(Type.String({ maxLength: 500 })),
  style: Nullable(DrawingStyle),
});

export const CreateDrawingBody = Type.Object(
  { ...Type.Partial(DrawingFields).properties, geometry: Geometry },
  { additionalProperties: false },
);
export type CreateDrawingInput = Static<typeof CreateDrawingBody>;

export const PatchDrawingBody = Type.Partial(DrawingFields, { additionalProperties: false });
export type DrawingInput = Static<typeof PatchDrawingBody>;

export const Drawing = Type.Object({
  id: Type.String({ description: '`drawing-<suffix>`' }),
  ...DrawingFields.properties,
  createdBy: Type.String(),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});
export type Drawing = Static<typeof Drawing>;
