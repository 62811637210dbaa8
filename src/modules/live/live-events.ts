import { type Static, type TSchema, Type } from 'typebox';
import { Comment, Reply } from '../comments/comments.schemas.js';
import { Drawing } from '../drawings/drawings.schemas.js';
import { ImportReply } from '../exports/exports.schemas.js';
import { Icon } from '../icons/icons.schemas.js';
import { FeatureChange } from '../layers/feature-edits.schemas.js';
import { VectorLayer } from '../layers/layers.schemas.js';
import { Marker } from '../markers/markers.schemas.js';
import { RoleChange } from '../members/members.schemas.js';
import { RasterLayer } from '../rasters/rasters.schemas.js';
import { RoomSettings } from '../rooms/rooms.schemas.js';
import { OrderBody, Slide } from '../slides/slides.schemas.js';

/**
 * Every change of room content as the live channel sends it, and as history keeps it: the
 * one list of change types with what their `data` holds. The write path accepts only these
 * (`Change` in history/write-path.ts is derived from this union through infra/live-hub.ts), the OpenAPI document shows
 * them as the `LiveEvent` schema, and the web application's types are generated from it.
 */
const change = <T extends string, O extends string, D extends TSchema>(type: T, objectType: O, data: D) =>
  Type.Object({
    type: Type.Literal(type),
    objectType: Type.Literal(objectType),
    objectId: Type.String(),
    data,
    version: Type.Integer({ description: "The room's version after this change" }),
    at: Type.Integer({ description: 'Epoch milliseconds' }),
    actor: Type.Object(
      { kind: Type.Enum(['user', 'token']), id: Type.String() },
      { description: 'Who made it: a user or a room token, as in history' },
    ),
  });

/** A deletion carries no object: its id is `objectId`. */
const Deleted = Type.Null();

/** What an import, a clone or a bulk import brought into the room (`room.imported`). */
const ImportSummary = Type.Object({
  source: Type.String({ description: '`room-export`, `geopackage`, `clone`, `bulk-import` or `layer-upload`' }),
  sourceRoomId: Type.Optional(Type.String()),
  jobId: Type.Optional(Type.String()),
  markers: Type.Optional(Type.Integer()),
  imported: Type.Optional(ImportReply.properties.imported),
});

export const LiveChange = Type.Union([
  change('marker.created', 'marker', Marker),
  change('marker.updated', 'marker', Marker),
  change('marker.deleted', 'marker', Deleted),
  change('drawing.created', 'drawing', Drawing),
  change('drawing.updated', 'drawing', Drawing),
  change('drawing.deleted', 'drawing', Deleted),
  change('layer.created', 'layer', VectorLayer),
  change('layer.updated', 'layer', VectorLayer),
  change('layer.deleted', 'layer', Deleted),
  change('feature.created', 'feature', FeatureChange),
  change('feature.updated', 'feature', FeatureChange),
  change('feature.deleted', 'feature', FeatureChange),
  change('rasterLayer.created', 'rasterLayer', RasterLayer),
  change('rasterLayer.updated', 'rasterLayer', RasterLayer),
  change('rasterLayer.deleted', 'rasterLayer', Deleted),
  change('icon.created', 'icon', Icon),
  change('slide.created', 'slide', Slide),
  change('slide.updated', 'slide', Slide),
  change('slide.deleted', 'slide', Deleted),
  change('presentation.updated', 'presentation', OrderBody),
  change('comment.created', 'comment', Comment),
  change('comment.updated', 'comment', Comment),
  change('comment.deleted', 'comment', Deleted),
  change('reply.created', 'reply', Reply),
  change('reply.deleted', 'reply', Deleted),
  change('member.updated', 'member', RoleChange),
  change('room.updated', 'room', RoomSettings),
  change('room.cleared', 'room', Deleted),
  change('room.imported', 'room', ImportSummary),
]);
export type LiveChange = Static<typeof LiveChange>;

/** The channel's own messages, besides the changes. */
const Hello = Type.Object(
  { type: Type.Literal('hello'), roomId: Type.String(), version: Type.Integer() },
  { description: "First: the room's version when the socket opened" },
);
const Resync = Type.Object(
  { type: Type.Literal('resync'), version: Type.Integer() },
  { description: 'Too far behind (over 1,000 changes, or history cleared): reload the room, listen from `version`' },
);
const Refusal = Type.Object(
  { type: Type.Literal('error'), error: Type.String(), message: Type.String() },
  { description: 'Just before the server closes the socket' },
);

/** Who a presence message is about: a signed-in user (name, else e-mail) or a room token (its name). */
const Who = {
  kind: Type.Enum(['user', 'token']),
  id: Type.String(),
  name: Type.String(),
};
export const Present = Type.Object({
  ...Who,
  since: Type.Integer({ description: 'Epoch milliseconds: when their first open socket joined' }),
});
const PresenceJoined = Type.Object(
  { type: Type.Literal('presence.joined'), ...Present.properties },
  { description: 'A user or token opened the room (their first socket in it)' },
);
const PresenceLeft = Type.Object(
  { type: Type.Literal('presence.left'), ...Who },
  { description: 'A user or token closed their last socket in the room (or lost it)' },
);

/** Where a client points, or what it looks at: sent by a client, relayed to the room's other sockets. */
const PointerFields = {
  lng: Type.Number({ minimum: -180, maximum: 180 }),
  lat: Type.Number({ minimum: -90, maximum: 90 }),
};
const ViewFields = {
  ...PointerFields,
  zoom: Type.Number({ minimum: 0, maximum: 24 }),
  bearing: Type.Optional(Type.Number({ minimum: -360, maximum: 360 })),
  pitch: Type.Optional(Type.Number({ minimum: 0, maximum: 85 })),
};
/** The layer's feature a client edits (its shape or attributes), or null when it stops. */
const EditingFields = {
  feature: Type.Union([
    Type.Null(),
    Type.Object(
      { layerId: Type.String({ minLength: 1, maxLength: 100 }), featureId: Type.Integer({ minimum: 0 }) },
      { additionalProperties: false },
    ),
  ]),
};
/** What a client may send after it is admitted (not stored; at most one of each type per 50 ms per person or token is relayed). */
export const ClientMessage = Type.Union([
  Type.Object({ type: Type.Literal('pointer'), ...PointerFields }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('view'), ...ViewFields }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('editing'), ...EditingFields }, { additionalProperties: false }),
]);
export type ClientMessage = Static<typeof ClientMessage>;
const From = Type.Object(Who, { description: 'Who sent it' });
const Pointer = Type.Object(
  { type: Type.Literal('pointer'), from: From, ...PointerFields },
  { description: "Another member's pointer on the map" },
);
const View = Type.Object(
  { type: Type.Literal('view'), from: From, ...ViewFields },
  { description: "Another member's map view" },
);
const Editing = Type.Object(
  { type: Type.Literal('editing'), from: From, ...EditingFields },
  { description: "The layer's feature another member edits, or null when they stopped" },
);
/** Presence news and relayed pointers: not changes of the room (no version, not in history). */
export const PresenceEvent = Type.Union([PresenceJoined, PresenceLeft, Pointer, View, Editing]);
export type PresenceEvent = Static<typeof PresenceEvent>;

/** Every message the live channel sends, told apart by `type`. */
export const LiveEvent = Type.Union([Hello, Resync, Refusal, ...LiveChange.anyOf, ...PresenceEvent.anyOf], {
  $id: 'LiveEvent',
  description:
    'A message of the live channel (`GET /api/rooms/{roomId}/live`), told apart by `type`. A change carries the ' +
    'object after it as `data` (null when deleted), the same type names as the history.',
});
export type LiveEvent = Static<typeof LiveEvent>;

declare module '../../infra/live-hub.js' {
  /** Types the hub, the write path and the channel by the union above (see infra/live-hub.ts). */
  interface LiveChanges {
    change: LiveChange;
  }
}
