import { type Static, Type } from 'typebox';

export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 50;

/** A text people type: 1 to 200 characters with at least one that is not a space (it is trimmed). */
const SearchText = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'The text looked for, case-insensitively and as plain text (no wildcards); trimmed',
});

/** `GET /api/rooms/:roomId/search`. */
export const SearchQuery = Type.Object(
  {
    q: SearchText,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_SEARCH_LIMIT,
        description: `Most results, default ${DEFAULT_SEARCH_LIMIT}`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type SearchQuery = Static<typeof SearchQuery>;

const Bbox = Type.Array(Type.Number(), {
  minItems: 4,
  maxItems: 4,
  description: '[west, south, east, north] in WGS84 degrees (a point: twice the same corner)',
});
const Title = Type.String({ description: 'What the result is called: a title, a label, the text field that matched' });
const Detail = Type.Optional(Type.String({ description: 'Where the text was found, in words' }));

/** One thing of the room that holds the text. */
export const SearchResult = Type.Union([
  Type.Object({ kind: Type.Literal('marker'), id: Type.String(), title: Title, detail: Detail, bbox: Bbox }),
  Type.Object({ kind: Type.Literal('drawing'), id: Type.String(), title: Title, detail: Detail, bbox: Bbox }),
  Type.Object({
    kind: Type.Literal('feature'),
    id: Type.Integer({ description: "The feature's id (as in the features, tiles, attributes and OGC API)" }),
    layerId: Type.String(),
    title: Title,
    detail: Detail,
    bbox: Bbox,
  }),
]);
export type SearchResult = Static<typeof SearchResult>;

/**
 * A layer whose search ended at its window (its first ATTRIBUTES_SCAN_ROWS features) with room
 * left for results: the features past the window were not read and may hold the text.
 */
export const PartialLayer = Type.Object({
  layerId: Type.String(),
  name: Type.String({ description: "The layer's name" }),
  featureCount: Type.Integer({ description: 'Its features in all' }),
  searched: Type.Integer({ description: 'Its features searched: the first ones, by id (ATTRIBUTES_SCAN_ROWS)' }),
});
export type PartialLayer = Static<typeof PartialLayer>;

export const SearchResults = Type.Object({
  results: Type.Array(SearchResult, { description: 'Markers first, then drawings, then features layer by layer' }),
  partialLayers: Type.Array(PartialLayer, {
    description:
      'The layers searched only in part (in the order searched; empty when none): their attribute table ' +
      '(`GET /api/layers/{layerId}/attributes?q=`) finds the text anywhere in them, page after page',
  }),
});
export type SearchResults = Static<typeof SearchResults>;

/** `GET /api/geocode`. */
export const GeocodeQuery = Type.Object({ q: SearchText }, { additionalProperties: false });
export type GeocodeQuery = Static<typeof GeocodeQuery>;

export const Place = Type.Object({
  name: Type.String(),
  lon: Type.Number({ minimum: -180, maximum: 180 }),
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  bbox: Type.Optional(Bbox),
});
export type Place = Static<typeof Place>;

export const GeocodeResults = Type.Object({ results: Type.Array(Place) });
export type GeocodeResults = Static<typeof GeocodeResults>;
