/**
 * Refusals of an uploaded vector file, each with a stable code the routes answer with:
 * `unsupported_format` is 415; `invalid_file`, `invalid_zip`, `unknown_crs`,
 * `invalid_source_crs` (a `sourceCrs` GDAL does not know) and `no_feature_tables` are 400. The message is fit for the person who sent the file: GDAL's
 * reason and, where known, the place (a feature's position or a zip member's name).
 */
export type VectorRejection =
  | 'unsupported_format'
  | 'invalid_file'
  | 'invalid_zip'
  | 'unknown_crs'
  | 'invalid_source_crs'
  | 'no_feature_tables';

/** The formats a vector upload may be in, as the refusal names them. */
export const ACCEPTED_VECTOR_FORMATS =
  'GeoJSON (.geojson, .json), zipped shapefile (.zip), GeoPackage (.gpkg), point CSV (.csv), KML (.kml, .kmz), GPX (.gpx), FlatGeobuf (.fgb)';

export class VectorRejected extends Error {
  constructor(
    readonly code: VectorRejection,
    message: string,
    /** Where in the file, when known: e.g. `{feature: 12}` or `{member: "roads.shp"}`. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** 415: not one of the accepted formats; `what` says what the file looked like. */
export function unsupportedFormat(what: string): VectorRejected {
  return new VectorRejected('unsupported_format', `${what}; accepted formats: ${ACCEPTED_VECTOR_FORMATS}`);
}

/**
 * A GeoJSON read on the strength of the members before its features (a remote source, not read
 * to its end first) holds others after them, which may change how it is read (a CRS, a next
 * page): its reader stops, and the caller decides again on the whole file. Not a refusal.
 */
export class MembersAfterFeatures extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MembersAfterFeatures';
  }
}
