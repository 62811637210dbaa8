import { Type } from 'typebox';

export const HistoryEvent = Type.Object({
  id: Type.String(),
  version: Type.Integer({ description: "The room's state version after this change" }),
  type: Type.String({ description: '`<objectType>.<created|updated|deleted>`, `room.cleared` or `room.imported`' }),
  objectType: Type.String(),
  objectId: Type.String(),
  actor: Type.Object({ kind: Type.Enum(['user', 'token']), id: Type.String() }),
  at: Type.Integer(),
  changes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const HistoryQuery = Type.Object({
  before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
});
