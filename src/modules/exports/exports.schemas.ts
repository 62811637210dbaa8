import { Type, type Static } from 'typebox';
import { Nullable } from '../../schema-types.js';
import { Drawing } from '../drawings/drawings.schemas.js';
import { ImportedCounts } from '../exchange/exchange.schemas.js';
import { Description, LayerName, StyleInput } from '../layers/layers.schemas.js';
import { Marker } from '../markers/markers.schemas.js';

/** The export's options: the rasters' original GeoTIFFs, and each raster as a tile pyramid (both off by default). */
export const ExportOptionFields = Type.Object(
  {
    include_tiffs: Type.Optional(
      Type.Boolean({ default: false, description: "The rasters' original GeoTIFFs, in the table raster_files" }),
    ),
    include_tiles: Type.Optional(
      Type.Boolean({ default: false, description: 'Each raster as a GeoPackage tile pyramid' }),
    ),
  },
  { additionalProperties: false },
);
export type ExportOptionFields = Static<typeof ExportOptionFields>;

/** `POST /export` takes `{}` (nothing else is defined yet). */
export const ExportBody = Type.Object({}, { additionalProperties: false });

export const ExportSize = Type.Object({
  bytes: Type.Integer({ description: 'Estimated size of the export with include_tiffs' }),
  thresholdBytes: Type.Integer({ description: 'Above this, use export jobs' }),
  recommended: Type.Enum(['sync', 'async']),
});

export const ExportJobStatus = Type.Enum(['pending', 'running', 'complete', 'error', 'expired'], {
  description:
    'complete and error are terminal; a complete job becomes expired when its artifact is removed, 24 hours after it finished',
});

export const ExportJob = Type.Object({
  jobId: Type.String({ format: 'uuid' }),
  status: ExportJobStatus,
  bytes: Type.Union([Type.Integer(), Type.Null()], { description: "The artifact's size once complete" }),
  error: Type.Optional(Type.String()),
  startedAt: Type.Union([Type.Integer(), Type.Null()]),
  finishedAt: Type.Union([Type.Integer(), Type.Null()]),
  expiresAt: Type.Union([Type.Integer(), Type.Null()], { description: 'When the artifact is removed' }),
});
export type ExportJob = Static<typeof ExportJob>;

export const ExportJobParams = Type.Object({
  roomId: Type.String(),
  jobId: Type.String({ minLength: 1, maxLength: 100 }),
});

/**
 * A room described for cloning: its markers, icons and drawn shapes as the API shows them,
 * the settings of its layers and rasters (their data stays in the source room), and a
 * signed grant to copy that data, valid 24 hours.
 */
export const Manifest = Type.Object({
  sourceRoomId: Type.String({ minLength: 1, maxLength: 100 }),
  grant: Type.Optional(
    Type.String({
      maxLength: 4096,
      description: "Signed; altering the manifest's sourceRoomId or the grant makes it invalid",
    }),
  ),
  expiresAt: Type.Optional(Type.Integer({ description: 'When the grant expires (epoch ms)' })),
  markers: Type.Array(Marker, { maxItems: 100_000 }),
  icons: Type.Array(
    Type.Object({
      iconId: Type.String({ maxLength: 100 }),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      size: Type.Optional(Type.Integer({ minimum: 8, maximum: 256 })),
    }),
    { maxItems: 10_000 },
  ),
  drawings: Type.Array(Drawing, { maxItems: 100_000 }),
  layers: Type.Array(
    Type.Object({
      id: Type.String({ maxLength: 100 }),
      name: LayerName,
      description: Type.Optional(Nullable(Description)),
      style: Type.Optional(StyleInput),
    }),
    { maxItems: 1000 },
  ),
  rasterLayers: Type.Array(
    Type.Object({
      id: Type.String({ maxLength: 100 }),
      name: LayerName,
      description: Type.Optional(Nullable(Description)),
      display: Type.Optional(Type.Unknown()),
    }),
    { maxItems: 1000 },
  ),
});
export type Manifest = Static<typeof Manifest>;

export const CloneBody = Type.Object({ manifest: Manifest }, { additionalProperties: false });

export const ImportReply = Type.Object({
  success: Type.Boolean(),
  imported: ImportedCounts,
  skipped: Type.Optional(
    Type.Array(Type.Record(Type.String(), Type.String()), {
      description: 'What the file held but could not be restored, and why',
    }),
  ),
});
