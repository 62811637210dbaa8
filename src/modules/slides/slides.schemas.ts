import { Type } from 'typebox';
import { Nullable } from '../../http/schemas.js';
import { BASE_LAYERS } from '../rooms/rooms.presenter.js';

const Ids = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 1000, uniqueItems: true });

export const SlideView = Type.Object(
  {
    lat: Type.Number({ minimum: -90, maximum: 90 }),
    lng: Type.Number({ minimum: -180, maximum: 180 }),
    zoom: Type.Number({ minimum: 0, maximum: 24 }),
    bearing: Type.Optional(Type.Number({ minimum: -360, maximum: 360 })),
    pitch: Type.Optional(Type.Number({ minimum: 0, maximum: 85 })),
  },
  { additionalProperties: false },
);

const fields = {
  title: Type.String({ minLength: 1, maxLength: 200 }),
  body: Nullable(Type.String({ maxLength: 20_000 })),
  view: SlideView,
  baseLayer: Nullable(Type.Enum([...BASE_LAYERS])),
  markerIds: Ids,
  layerIds: Ids,
  rasterLayerIds: Ids,
  drawingIds: Ids,
};

export const CreateSlideBody = Type.Object(
  {
    title: fields.title,
    view: fields.view,
    body: Type.Optional(fields.body),
    baseLayer: Type.Optional(fields.baseLayer),
    markerIds: Type.Optional(fields.markerIds),
    layerIds: Type.Optional(fields.layerIds),
    rasterLayerIds: Type.Optional(fields.rasterLayerIds),
    drawingIds: Type.Optional(fields.drawingIds),
  },
  { additionalProperties: false },
);

export const PatchSlideBody = Type.Object(
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(v)])),
  { additionalProperties: false },
);

export interface SlideInput {
  title?: string;
  body?: string | null;
  view?: { lat: number; lng: number; zoom: number; bearing?: number; pitch?: number };
  baseLayer?: string | null;
  markerIds?: string[];
  layerIds?: string[];
  rasterLayerIds?: string[];
  drawingIds?: string[];
}

export const Slide = Type.Object({
  id: Type.String({ description: '`slide-<suffix>`' }),
  position: Type.Integer({ description: 'Order in the deck, from 0' }),
  title: Type.String(),
  body: Nullable(Type.String()),
  view: SlideView,
  baseLayer: Nullable(Type.String()),
  markerIds: Type.Array(Type.String()),
  layerIds: Type.Array(Type.String()),
  rasterLayerIds: Type.Array(Type.String()),
  drawingIds: Type.Array(Type.String()),
  createdBy: Type.String(),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});

export const OrderBody = Type.Object(
  { slideIds: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { uniqueItems: true, maxItems: 10_000 }) },
  { additionalProperties: false },
);
