import { rasterCacheSizesOf } from '../../config.js';
import { RasterPoints } from '../../geo-engine/raster-point.js';
import { TileableFiles } from '../../geo-engine/raster-reader.js';
import { RasterTiles } from '../../geo-engine/raster-tiles.js';
import { TtlCache } from '../../infra/ttl-cache.js';
import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import { rasterContent } from './raster-content.js';
import { RasterIngest } from './raster-ingest.js';
import { rasterLayers } from './rasters.exchange.js';
import { RastersRepository } from './rasters.repository.js';
import { rasterRestorable } from './rasters.restore.js';
import { rastersRoutes } from './rasters.routes.js';
import { RastersService } from './rasters.service.js';

/**
 * Rasters: their routes, their ingest step, restore and room content, with the tile caches
 * sized by the settings. Their part of the layers table's exchange (`kind`) goes to the
 * layers domain.
 */
export function rastersDomain(core: DomainCore) {
  const { db, config, files, staged, writePath, geo, tmpDir } = core;
  const caches = rasterCacheSizesOf(config);
  const tiles = new RasterTiles(new TileableFiles(caches), caches);
  const rasters = new RastersRepository(db);
  const ingest = new RasterIngest({ db, rasters, files, staged, tmpDir, tiles, geo });
  const service = new RastersService({
    rasters,
    files,
    writePath,
    tiles,
    points: new RasterPoints(config.rasterPointConcurrency, geo.quick),
    pointAnswers: new TtlCache(10 * 60_000, config.rasterPointCacheEntries),
  });
  return defineDomain(
    {
      name: 'rasters',
      routes: [routes(rastersRoutes, { rasters: service })],
      restorables: [rasterRestorable(rasters)],
      content: [rasterContent(rasters, files)],
      stages: ingest,
    },
    { ingest, kind: rasterLayers },
  );
}
