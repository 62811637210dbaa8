import { Type, type Static, type TSchema } from 'typebox';
import { COLORMAP_NAMES } from '../../geo/raster/colormaps.js';
import type { RasterDisplay as DisplaySettings } from '../../geo/raster/display.js';
import { RoomId } from '../../http/schemas.js';
import { Nullable } from '../../schema-types.js';

/**
 * Raster layers: the layer as lists and answers show it, the display PATCH, tiles, the point
 * query and the colormap list. The display's keys are one schema here (RasterDisplayFields);
 * the rules between them and the raster are geo/raster/display.ts's, applied together by
 * raster-display.ts.
 */

const NullableDescribed = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });
const Triple = Type.Array(Type.Number(), { minItems: 3, maxItems: 3 });
const PerBand = (description: string) => NullableDescribed(Type.Union([Type.Number(), Triple]), description);

/** Each key with its type; `description` doubles as the end of the problem sentence. */
export const RasterDisplayFields = {
  colormap: Type.String({
    minLength: 1,
    maxLength: 64,
    description: `a colormap name (${COLORMAP_NAMES.slice(0, 4).join(', ')}, ... see GET /api/colormaps; a "_r" suffix reverses)`,
  }),
  band: Type.Integer({ minimum: 1, description: 'a band number from 1, for single-band rendering' }),
  vmin: NullableDescribed(Type.Number(), 'a number (stretch start), or null for the automatic stretch'),
  vmax: NullableDescribed(Type.Number(), 'a number (stretch end), or null for the automatic stretch'),
  opacity: Type.Number({ minimum: 0, maximum: 1, description: 'a number from 0 to 1' }),
  renderMode: Type.Union([Type.Literal('single'), Type.Literal('rgb')], {
    description: '"single" (one band through a colormap) or "rgb" (a composite of rgbBands)',
  }),
  rgbBands: Type.Array(Type.Integer({ minimum: 1 }), {
    minItems: 3,
    maxItems: 3,
    description: 'three band numbers from 1: red, green, blue',
  }),
  nodata: NullableDescribed(Type.Number(), "a number shown transparent (besides the file's own nodata), or null"),
  reverse: Type.Boolean({ description: 'true or false: reverses the colormap' }),
  resampling: Type.Union([Type.Literal('nearest'), Type.Literal('bilinear')], {
    description: '"nearest" or "bilinear"',
  }),
  rgbMin: PerBand('a number or three numbers (stretch start of red, green, blue), or null for automatic'),
  rgbMax: PerBand('a number or three numbers (stretch end of red, green, blue), or null for automatic'),
};

type DisplayKey = keyof typeof RasterDisplayFields;
export const DISPLAY_KEYS = Object.keys(RasterDisplayFields) as DisplayKey[];

/** The display object as stored and sent; every key optional (a PATCH sends some). */
export const RasterDisplay = Type.Object(
  Object.fromEntries(DISPLAY_KEYS.map((key) => [key, Type.Optional(RasterDisplayFields[key])])) as {
    [K in DisplayKey]: ReturnType<typeof Type.Optional<(typeof RasterDisplayFields)[K]>>;
  },
  { additionalProperties: false, description: 'Raster display settings' },
);
export type RasterDisplay = Static<typeof RasterDisplay>;

/** Whether two types are the same shape. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The schema and geo's RasterDisplay type are one shape: a key added to one only fails to compile. */
const displayShapesMatch: Same<RasterDisplay, DisplaySettings> = true;
void displayShapesMatch;

const LayerId = Type.String({ minLength: 1, maxLength: 100, description: '`layer-<suffix>`' });

/** A raster layer (docs/contract-decisions.md: "Rasters in lists", plus what a map client needs). */
export const RasterLayer = Type.Object({
  id: LayerId,
  name: Type.String(),
  description: Nullable(Type.String()),
  display: RasterDisplay,
  width: Type.Integer({ description: 'Pixels of the uploaded GeoTIFF' }),
  height: Type.Integer(),
  bands: Type.Integer({ description: 'Data bands (an alpha band is not counted)' }),
  dataType: Type.String({ description: "GDAL's type: Byte, Int16, UInt16, Int32, UInt32, Float32 or Float64" }),
  nodata: Nullable(Type.Number({ description: "The file's own nodata value, drawn transparent" })),
  bbox: Nullable(
    Type.Array(Type.Number(), { minItems: 4, maxItems: 4, description: '[minLon, minLat, maxLon, maxLat]' }),
  ),
  sourceCrs: Nullable(Type.String({ description: 'The CRS of the upload, e.g. EPSG:2056' })),
  stats: Type.Array(
    Type.Object({ min: Nullable(Type.Number()), max: Nullable(Type.Number()), mean: Nullable(Type.Number()) }),
    {
      description: 'Per band, of the original pixels (null when a band has no valid pixel)',
    },
  ),
  minZoom: Type.Integer({ description: 'Coarsest zoom with an overview of its own (tiles exist below it too)' }),
  maxZoom: Type.Integer({ description: 'Zoom of the full resolution (tiles above it are enlarged)' }),
  tileUrl: Type.String({ description: 'The tile template, relative to the service' }),
  sizeBytes: Type.Integer({ description: 'Bytes stored: the uploaded GeoTIFF and its tileable copy' }),
  createdBy: Type.String(),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});
export type RasterLayer = Static<typeof RasterLayer>;

export const RasterLayerList = Type.Object({ rasterLayers: Type.Array(RasterLayer) });
export const RasterLayerReply = Type.Object({ success: Type.Boolean(), rasterLayer: RasterLayer });

export const RasterLayerParams = Type.Object({ roomId: RoomId, layerId: LayerId });

export const RasterTileParams = Type.Object({
  roomId: RoomId,
  layerId: LayerId,
  z: Type.Integer({ minimum: 0, maximum: 22 }),
  x: Type.Integer({ minimum: 0 }),
  y: Type.Integer({ minimum: 0 }),
});

export const PointQuery = Type.Object({
  lon: Type.Number({ minimum: -180, maximum: 180 }),
  lat: Type.Number({ minimum: -90, maximum: 90 }),
});
export type PointQuery = Static<typeof PointQuery>;

export const PointValues = Type.Object({
  lon: Type.Number(),
  lat: Type.Number(),
  values: Type.Array(Nullable(Type.Number()), { description: 'One per band; null at nodata or outside the raster' }),
});

export const ColormapList = Type.Object({
  colormaps: Type.Array(
    Type.Object({
      name: Type.String({ examples: ['viridis'] }),
      reversedName: Type.String({
        description: "The same ramp reversed (or set the display's `reverse`)",
        examples: ['viridis_r'],
      }),
      stops: Type.Array(Type.String(), {
        description: 'Evenly spaced colours from low to high, `#rrggbb`, for legends',
      }),
    }),
  ),
});
