import { Type } from 'typebox';
import { Drawing } from '../drawings/drawings.schemas.js';
import { VectorLayer } from '../layers/layers.schemas.js';
import { Marker } from '../markers/markers.schemas.js';
import { RasterLayer } from '../rasters/rasters.schemas.js';

export const SnapshotQuery = Type.Object({
  at: Type.Integer({ minimum: 0, maximum: 8.64e15, description: 'The moment, in epoch milliseconds' }),
});

export const Snapshot = Type.Object({
  version: Type.Integer({ description: "The room's version at that moment (0 before any change)" }),
  at: Type.Integer(),
  complete: Type.Boolean({
    description:
      'false when objects that came in with an import (which history keeps as one `room.imported` entry, not object ' +
      'by object) may be missing or shown wrongly: an imported object changed or deleted since, an import after the ' +
      'moment, or a clear after it of a room that had imports',
  }),
  markers: Type.Array(Marker),
  drawings: Type.Array(Drawing),
  layers: Type.Array(VectorLayer),
  rasterLayers: Type.Array(RasterLayer),
});
