import { contentOf } from '../domain/room-content.js';
import { type DomainCore, defineDomain, jobKindOf, routes } from '../domain/domain.js';
import type { IconsRepository } from '../icons/icons.repository.js';
import { BULK_IMPORT_JOB, BulkImport } from './bulk-import.js';
import { bulkImportRoutes } from './bulk-import.routes.js';
import { MarkerImages } from './marker-images.js';
import { markerImagesRoutes } from './marker-images.routes.js';
import { markerPhotosExchange, markersExchange } from './markers.exchange.js';
import { MarkersRepository } from './markers.repository.js';
import { markerRestorable } from './markers.restore.js';
import { markersRoutes } from './markers.routes.js';
import { MarkersService } from './markers.service.js';

/** Markers and their photos (they use the room's icons): routes, tables of an export, restore, room content. */
export function markersDomain(core: DomainCore, { icons }: { icons: IconsRepository }) {
  const { db, files, writePath, receiver } = core;
  const markers = new MarkersRepository(db, core.database.copyInto);
  const images = new MarkerImages(markers, files);
  return defineDomain(
    {
      name: 'markers',
      routes: [
        routes(markersRoutes, { markers: new MarkersService(markers, icons, images, writePath) }),
        routes(markerImagesRoutes, { images, uploads: receiver }),
      ],
      exchanges: [markerPhotosExchange(files), markersExchange(db, markers)],
      restorables: [markerRestorable(markers, images, icons)],
      content: [
        contentOf('markers', markers, (roomId) => files.removeKinds(roomId, ['marker-image', 'marker-thumbnail'])),
      ],
    },
    { markers, images },
  );
}

/** Markers from a CSV or GeoJSON file, in a job. */
export function bulkImportDomain(
  core: DomainCore,
  parts: { markers: MarkersRepository; images: MarkerImages; icons: IconsRepository },
) {
  const { db, files, jobs, staged, writePath, receiver } = core;
  const bulkImport = new BulkImport({ db, files, jobs, staged, writePath, ...parts });
  return defineDomain({
    name: 'bulk-import',
    routes: [routes(bulkImportRoutes, { bulkImport, uploads: receiver })],
    jobKinds: [jobKindOf(BULK_IMPORT_JOB, bulkImport.worker)],
  });
}
