import { type DomainCore, defineDomain, jobKindOf, routes } from '../domain/domain.js';
import type { KindExchange } from '../exchange/exchange.js';
import { Ingest } from '../ingest/ingest.js';
import type { MarkersRepository } from '../markers/markers.repository.js';
import { HistoryRepository } from '../history/history.repository.js';
import type { ActorNames } from '../users/actor-names.js';
import { FeatureAttributesRepository } from './feature-attributes.js';
import { FeatureEditsRepository } from './feature-edits.repository.js';
import { featureEditsRoutes } from './feature-edits.routes.js';
import { layerFieldsRoutes } from './layer-fields.routes.js';
import { LayerFields } from './layer-fields.service.js';
import { FeatureEdits } from './feature-edits.service.js';
import { FeatureTablesRepository } from './feature-tables.js';
import { LayerAttributes } from './layer-attributes.js';
import { layerContent } from './layer-content.js';
import { LayerIngest, type LayerMeta } from './layer-ingest.js';
import { layersExchange, vectorLayers } from './layers.exchange.js';
import { styleCheck } from './layers.schemas.js';
import type { LayersTable } from '../../db/tables.js';
import { CHUNKED_MAX_BYTES } from '../ingest/chunked-uploads.js';
import { LayersRepository } from './layers.repository.js';
import { layerRestorable } from './layers.restore.js';
import { layersRoutes } from './layers.routes.js';
import { LayersService } from './layers.service.js';
import { PointImport } from './point-import.js';
import { REMOTE_LAYER_JOB, RemoteLayers } from './remote-layers.js';
import { remoteLayersRoutes } from './remote-layers.routes.js';
import { ingestDatabaseOf } from './vector-ingest.js';

/**
 * Vector layers: their routes, their ingest step, the layers table of an export (with the
 * other kinds of its rows, `otherKinds`: rasters), restore and room content, and the edits of
 * their features. Point files become markers.
 */
export function layersDomain(
  core: DomainCore,
  parts: { markers: MarkersRepository; otherKinds: KindExchange<LayersTable, LayerMeta>[]; names: ActorNames },
) {
  const { db, database, config, files, staged, writePath, geo, tmpDir, jobs } = core;
  const layers = new LayersRepository(db);
  const featureTables = new FeatureTablesRepository(db, database.dialect);
  const attributes = new FeatureAttributesRepository(db, database.dialect);
  const ingest = new LayerIngest({
    db,
    layers,
    features: featureTables,
    points: new PointImport(db, parts.markers, geo),
    staged,
    database: ingestDatabaseOf(config, database.dialect),
    tmpDir,
    quota: files,
    geo,
  });
  const editsRepository = new FeatureEditsRepository(database.dialect);
  const layerIngest = new Ingest(staged, writePath);
  const service = new LayersService({
    edits: editsRepository,
    layers,
    featureTables,
    ingest: layerIngest,
    vectorIngest: ingest,
    files,
    writePath,
    tmpDir,
  });
  const layerRoom = { param: 'layerId', what: 'Layer', find: (id: string) => layers.roomOf(id) };
  const edits = new FeatureEdits({
    layers,
    edits: editsRepository,
    history: new HistoryRepository(db),
    writePath,
    db,
    names: parts.names,
  });
  const remote = new RemoteLayers({
    db,
    layers,
    featureTables,
    edits: editsRepository,
    vectorIngest: ingest,
    ingest: layerIngest,
    staged,
    writePath,
    jobs,
    tmpDir,
    fetch: {
      maxBytes: CHUNKED_MAX_BYTES,
      timeoutMs: config.remoteLayerTimeoutMs,
      allowPrivate: config.outboundAllowPrivate,
    },
  });
  return defineDomain(
    {
      name: 'layers',
      routes: [
        routes(layersRoutes, {
          layers: service,
          attributes: new LayerAttributes({ layers, attributes, scanRows: config.attributesScanRows }),
          layerRoom,
        }),
        routes(featureEditsRoutes, { edits, layerRoom }),
        routes(remoteLayersRoutes, { remote, layerRoom }),
        routes(layerFieldsRoutes, {
          fields: new LayerFields({ layers, edits: editsRepository, attributes, writePath }),
          layerRoom,
        }),
      ],
      exchanges: [layersExchange(layers, [vectorLayers, ...parts.otherKinds])],
      restorables: [layerRestorable(layers), edits.restorable()],
      content: [layerContent(layers, featureTables)],
      stages: ingest,
      jobKinds: [jobKindOf(REMOTE_LAYER_JOB, remote.worker)],
      sweeps: [remote.sweep, remote.retiredTables],
    },
    {
      layers,
      featureTables,
      attributes,
      ingest,
      edits,
      styleProblem: (style: unknown) => styleCheck.problem(style),
    },
  );
}
