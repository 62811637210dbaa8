import { Type, type Static } from 'typebox';
import { BaseLayer, MapView } from '../../http/schemas.js';
import { Nullable } from '../../schema-types.js';

const Ids = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 1000, uniqueItems: true });

export const SlideView = Type.Object(
  {
    ...MapView.properties,
    bearing: Type.Optional(Type.Number({ minimum: -360, maximum: 360 })),
    pitch: Type.Optional(Type.Number({ minimum: 0, maximum: 85 })),
    width: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        description: "The map's width in CSS px where the view was framed: a deck fits that area to its screen",
      }),
    ),
    height: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        description: "The map's height in CSS px where the view was framed",
      }),
    ),
  },
  { additionalProperties: false },
);
export type SlideView = Static<typeof SlideView>;

/** The fields a caller writes, with their rules. */
const SlideFields = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200 }),
  body: Nullable(Type.String({ maxLength: 20_000 })),
  view: SlideView,
  baseLayer: Nullable(BaseLayer),
  markerIds: Ids,
  layerIds: Ids,
  rasterLayerIds: Ids,
  drawingIds: Ids,
});

export const CreateSlideBody = Type.Object(
  { ...Type.Partial(SlideFields).properties, title: SlideFields.properties.title, view: SlideView },
  { additionalProperties: false },
);
export type CreateSlideInput = Static<typeof CreateSlideBody>;

export const PatchSlideBody = Type.Partial(SlideFields, { additionalProperties: false });
export type SlideInput = Static<typeof PatchSlideBody>;

export const Slide = Type.Object({
  id: Type.String({ description: '`slide-<suffix>`' }),
  position: Type.Integer({ description: 'Order in the deck, from 0' }),
  ...SlideFields.properties,
  createdBy: Type.String(),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});
export type Slide = Static<typeof Slide>;

export const OrderBody = Type.Object(
  { slideIds: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { uniqueItems: true, maxItems: 10_000 }) },
  { additionalProperties: false },
);
