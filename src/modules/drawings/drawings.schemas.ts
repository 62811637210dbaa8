import { Type } from 'typebox';
import { Nullable, HexColor } from '../../http/schemas.js';


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

export const CreateDrawingBody = Type.Object(
  {
    geometry: Geometry,
    label: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    style: Type.Optional(Nullable(DrawingStyle)),
  },
  { additionalProperties: false },
);

export const PatchDrawingBody = Type.Object(
  {
    geometry: Type.Optional(Geometry),
    label: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    style: Type.Optional(Nullable(DrawingStyle)),
  },
  { additionalProperties: false },
);

export type DrawingInput = {
  geometry?: unknown;
  label?: string | null;
  style?: Record<string, unknown> | null;
};

export const Drawing = Type.Object({
  id: Type.String({ description: '`drawing-<suffix>`' }),
  geometry: Type.Unknown(),
  label: Nullable(Type.String()),
  style: Nullable(DrawingStyle),
  createdBy: Type.String(),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});
