import { blobKeys } from '../files/blob-keys.js';
import type { StoredFiles } from '../files/stored-files.js';
import { contentOf, type ContentTable } from '../domain/room-content.js';
import type { RastersRepository } from './rasters.repository.js';

/**
 * Raster layers as a kind of room content (`rasterLayers`), for `counts` and `clear` (and room
 * deletion): their rows go in the clear's transaction, their files after the commit.
 */
export const rasterContent = (rasters: RastersRepository, files: StoredFiles): ContentTable =>
  contentOf('rasterLayers', rasters, (roomId) => files.removeUnder(roomId, blobKeys.layersOfRoom(roomId)));
