import { Type, type Static } from 'typebox';
import { RasterDisplay } from '../../geo/raster/display.js';
import { RoomId } from '../../http/schemas.js';
import { Nullable } from '../../schema-types.js';

/**
 * Raster layers: the layer as lists and answers show it, the display PATCH, tiles, the point
 * query and the colormap list. The display's keys and rules are one schema in
 * geo/raster/display.ts, checked there against the raster itself.
 */

export { RasterDisplay };

const LayerId = Type.String({ minLength: 1, maxLength: 100, description: '`layer-<suffix>`' });

/** A raster layer (decisions.md: "Rasters in lists", plus what a map client needs). */
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
