import { Type, type TSchema } from 'typebox';
import { ROOM_ID_PATTERN } from '../ids.js';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Stable machine-readable code' }),
    message: Type.String({ description: 'Human-readable sentence' }),
    details: Type.Optional(Type.Unknown()),
  },
  { $id: 'ErrorBody', description: 'Every error response' },
);

export const RoomId = Type.String({
  pattern: ROOM_ID_PATTERN,
  description: 'Exactly 10 characters from A-Z, a-z, 0-9, _ and -',
  examples: ['team-map01'],
});

export const RoomParams = Type.Object({ roomId: RoomId });

export const Email = Type.String({ format: 'email', maxLength: 254 });

/** `?ifLatestVersion=` of a delete: only if nobody changed the object since (an undo of a create). */
export const IfLatestVersionQuery = Type.Object({
  ifLatestVersion: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description:
        "Delete only if the object's newest history entry still has this version (an undo of a create must not " +
        "take away someone's later change); otherwise 409 `changed_since`",
    }),
  ),
});

/**
 * The OpenAPI security of the routes GIS clients read (the OGC API, vector and raster tiles):
 * a Bearer credential, or a room token as the password of HTTP Basic (`config.access.basicAuth`).
 */
export const GIS_SECURITY: Record<string, string[]>[] = [{ bearer: [] }, { basic: [] }];
/** What the description of such a route says of it. */
export const GIS_AUTH_RULE =
  'A room token may also be sent as the password of HTTP Basic, with any user name. A 401 answers ' +
  '`WWW-Authenticate: Basic realm="Maproom"` (`Bearer realm="Maproom"` to a Bearer credential or a script of a browser page).';

/** Response schemas for errors a route may answer, for the OpenAPI document. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref('ErrorBody')]));
}

/** Path parameters of a room's object: `:roomId` and the object's own id parameter. */
export const roomObjectParams = <K extends string>(idParam: K) =>
  Type.Object({ roomId: RoomId, [idParam]: Type.String({ minLength: 1, maxLength: 100 }) } as {
    roomId: typeof RoomId;
  } & Record<K, ReturnType<typeof Type.String>>);

/** The base maps a room or a slide may name. */
export const BaseLayer = Type.Enum(['osm', 'carto', 'voyager', 'satellite', 'swisstopo', 'swissimage']);

/** A map view: centre and zoom. Slides add bearing and pitch. */
export const MapView = Type.Object(
  {
    lat: Type.Number({ minimum: -90, maximum: 90 }),
    lng: Type.Number({ minimum: -180, maximum: 180 }),
    zoom: Type.Number({ minimum: 0, maximum: 24 }),
  },
  { additionalProperties: false },
);
