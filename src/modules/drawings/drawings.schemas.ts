import { Type } from 'typebox';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Hex = Type.String({ pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$' });

export const DrawingStyle = Type.Object(
  {
    color: Type.Optional(Hex),
    fillColor: Type.Optional(Hex),
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
    label: Type.Optional(nullable(Type.String({ maxLength: 500 }))),
    style: Type.Optional(nullable(DrawingStyle)),
  },
  { additionalProperties: false },
);

export const PatchDrawingBody = Type.Object(
  {
    geometry: Type.Optional(Geometry),
    label: Type.Optional(nullable(Type.String({ maxLength: 500 }))),
    style: Type.Optional(nullable(DrawingStyle)),
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
  label: nullable(Type.String()),
  style: nullable(DrawingStyle),
  createdBy: Type.String(),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});
