import { Type } from 'typebox';

export const HistoryEvent = Type.Object({
  id: Type.String(),
  version: Type.Integer({ description: "The room's state version after this change" }),
  type: Type.String({ description: '`<objectType>.<created|updated|deleted>`, `room.cleared` or `room.imported`' }),
  objectType: Type.String(),
  objectId: Type.String(),
  actor: Type.Object({
    kind: Type.Enum(['user', 'token']),
    id: Type.String(),
    name: Type.Optional(
      Type.String({ description: "The user's name, else e-mail; the token's name (left out for a revoked token)" }),
    ),
  }),
  objectName: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        "The object's title or name as the entry left it (before a deletion: as it was): a marker's or slide's title, a " +
        "drawing's label, a layer's or room's name, a member's name, a comment's first 80 characters",
    }),
  ),
  at: Type.Integer(),
  changes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const HistoryQuery = Type.Object({
  before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
});
