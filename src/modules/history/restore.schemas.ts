import { Type } from 'typebox';
import { RoomParams } from '../../http/schemas.js';
import { HistoryEvent } from './history.schemas.js';

export const RestoreParams = Type.Object({
  roomId: RoomParams.properties.roomId,
  entryId: Type.String({ minLength: 1, maxLength: 100 }),
});

export const RestoreBody = Type.Object(
  {
    ifLatestVersion: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          "Restore only if the object's newest history entry still has this version (an undo that must not " +
          "overwrite someone's later change); otherwise 409 `changed_since`",
      }),
    ),
  },
  { additionalProperties: false },
);

export const RestoreReply = Type.Object({
  success: Type.Boolean(),
  objectType: Type.String(),
  objectId: Type.String(),
  restoredFrom: Type.String({ description: 'The id of the entry whose state came back' }),
  object: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The object as its routes answer it now (a marker, drawing, comment, reply, slide, layer or raster)',
  }),
  notes: Type.Array(Type.String(), { description: 'What did not come back, e.g. a photo that left storage' }),
  overwrote: Type.Union([
    Type.Object(
      {
        ...HistoryEvent.properties,
        laterEntries: Type.Integer({ description: 'How many entries of the object came after the restored one' }),
      },
      { description: "The object's newest entry, which this restore overwrote" },
    ),
    Type.Null(),
  ]),
});
