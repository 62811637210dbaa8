import path from 'node:path';

/**
 * The one place that spells the blob store's keys. Every file of a room lives under a folder
 * named by its kind and the room, so that a room's files can be found and removed together.
 * The layout is the one already on disk: changing a spelling here strands stored files.
 */

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** The only marker photo keys there are: `markers/<roomId>/<uuid>.jpg` or `..._thumb.jpg`. */
const MARKER_PHOTO = new RegExp(`^markers/([A-Za-z0-9_-]{10})/${UUID}(?:_thumb)?\\.jpg$`);

/** A raster layer's folder (what deleting the layer removes), with the original and the tileable file. */
const layerFolder = (roomId: string, layerId: string) => `layers/${roomId}/${layerId}/`;

export const blobKeys = {
  /** A marker photo (a UUID names the pair) and its thumbnail. */
  markerImage: (roomId: string, id: string) => `markers/${roomId}/${id}.jpg`,
  markerThumbnail: (roomId: string, id: string) => `markers/${roomId}/${id}_thumb.jpg`,
  /** Whether `key` has exactly the shape of a photo or thumbnail key of this room. */
  isMarkerPhotoOf: (roomId: string, key: string) => MARKER_PHOTO.exec(key)?.[1] === roomId,
  /** A marker icon; `ext` is `png` or `svg`. */
  icon: (roomId: string, iconId: string, ext: string) => `icons/${roomId}/${iconId}.${ext}`,
  layerFolder,
  /** The folder of every layer of a room (what clearing the room removes). */
  layersOfRoom: (roomId: string) => `layers/${roomId}/`,
  /** A raster layer's original GeoTIFF, as uploaded. */
  rasterSource: (roomId: string, layerId: string) => `${layerFolder(roomId, layerId)}source.tif`,
  /** A raster layer's tileable GeoTIFF (EPSG:3857, tiled, with overviews), which tiles read. */
  rasterTiles: (roomId: string, layerId: string) => `${layerFolder(roomId, layerId)}tiles.tif`,
  /** An uploaded file waiting for its job, with the extension of the name it was sent with (GDAL reads it). */
  queuedUpload: (roomId: string, jobId: string, fileName: string) =>
    `uploads/${roomId}/${jobId}${path
      .extname(fileName)
      .toLowerCase()
      .replace(/[^.a-z0-9]/g, '')}`,
  /** A GeoJSON file waiting for its bulk import. */
  bulkImport: (roomId: string, jobId: string) => `imports/${roomId}/${jobId}.geojson`,
  /** One received chunk of a chunked upload; `partId` tells a resent chunk from the first. */
  uploadChunk: (roomId: string, uploadId: string, index: number, partId: string) =>
    `chunks/${roomId}/${uploadId}/${index}-${partId}`,
  /** The GeoPackage of an export job, while it lasts. */
  exportArtifact: (roomId: string, jobId: string) => `exports/${roomId}/${jobId}.gpkg`,
  /**
   * The folders of a room's files that stored_files may not list (queued imports and uploads,
   * chunks, export artifacts), which deleting the room removes as folders.
   */
  unlistedFoldersOf: (roomId: string) => ['imports', 'uploads', 'chunks', 'exports'].map((f) => `${f}/${roomId}/`),
};
