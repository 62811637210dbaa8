import { type Static, Type } from 'typebox';

/** At most this many sites may frame a room: a number of the API's documented answers. */
export const MAX_EMBED_ORIGINS = 50;
/** Layers one embed key may name (a bound on the key's row, not a policy). */
export const MAX_EMBED_KEY_LAYERS = 500;

export const Origins = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
  maxItems: MAX_EMBED_ORIGINS,
  description:
    'The sites that may frame the `/e/` pages: `https://host[:port]` or `http://host[:port]` (no path), or exactly `["*"]` for any site (public rooms and published decks only); `[]`: none',
});

export const EmbeddingBody = Type.Object({ origins: Origins }, { additionalProperties: false });
export const Embedding = Type.Object({ origins: Type.Array(Type.String()) });

const EmbedKeyLayers = Type.Union([Type.Array(Type.String()), Type.Null()], {
  description: 'The vector and raster layer ids the key reads; null: every layer of the room',
});

export const EmbedKeyFields = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
  expiresInDays: Type.Integer({ minimum: 1, maximum: 365 }),
});

export const CreateEmbedKeyBody = Type.Object(
  {
    ...EmbedKeyFields.properties,
    layers: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        maxItems: MAX_EMBED_KEY_LAYERS,
        description: 'Vector or raster layer ids of the room; omitted: every layer',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateEmbedKeyInput = Static<typeof CreateEmbedKeyBody>;

export const CreatedEmbedKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String({ description: '`mre_` followed by 43 URL-safe characters; shown only in this answer' }),
  expiresAt: Type.Integer(),
  layers: EmbedKeyLayers,
});

export const EmbedKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  expiresAt: Type.Integer(),
  layers: EmbedKeyLayers,
  createdAt: Type.Integer(),
  lastUsedAt: Type.Union([Type.Integer(), Type.Null()], { description: 'Precise to a minute' }),
});
export const EmbedKeyList = Type.Object({ keys: Type.Array(EmbedKey) });

export const EmbedKeyParams = Type.Object({
  roomId: Type.String(),
  keyId: Type.String({ minLength: 1, maxLength: 100 }),
});

export const OEmbedQuery = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'A public room (`/r/<roomId>`) or published deck (`/p/<roomId>`) address of this service',
  }),
  maxwidth: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  maxheight: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  format: Type.Optional(Type.String({ maxLength: 20, description: '`json` (the default); `xml` is answered 501' })),
});
export type OEmbedInput = Static<typeof OEmbedQuery>;

export const OEmbed = Type.Object({
  version: Type.Literal('1.0'),
  type: Type.Literal('rich'),
  title: Type.String(),
  provider_name: Type.String(),
  provider_url: Type.String(),
  html: Type.String({ description: 'An `<iframe>` of the `/e/` page' }),
  width: Type.Integer(),
  height: Type.Integer(),
});
export type OEmbedAnswer = Static<typeof OEmbed>;
