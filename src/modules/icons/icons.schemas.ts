import { Type } from 'typebox';
import { ICON_SIZE } from './icons.service.js';

/** A marker icon of the room, as lists and live clients (`icon.created`) see it. */
export const Icon = Type.Object({
  iconId: Type.String({ description: '`icon-api-<suffix>`' }),
  name: Type.String(),
  size: Type.Integer({ minimum: ICON_SIZE.min, maximum: ICON_SIZE.max }),
  contentType: Type.Union([Type.Literal('image/svg+xml'), Type.Literal('image/png')]),
  createdAt: Type.Integer({ description: 'Epoch milliseconds' }),
  createdBy: Type.String({ description: 'User id, or the room token id' }),
});
