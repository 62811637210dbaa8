/** A problem with the input, said so that the person who made the file can find it. */
export class GeoJsonError extends Error {}

/** A Point feature: its position and its properties, unchecked (the caller knows what they mean). */
export interface PointFeature {
  latitude: number;
  longitude: number;
  properties: Record<string, unknown>;
}

const where = (index: number) => `Feature ${index + 1} (features[${index}])`;

function fail(index: number, problem: string): never {
  throw featureError(index, problem);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks that `feature` is a GeoJSON Point feature in range; `index` names it in errors. */
export function pointOf(feature: unknown, index: number): PointFeature {
  if (!isObject(feature) || feature.type !== 'Feature') fail(index, 'must be an object with "type": "Feature"');
  const geometry = feature.geometry;
  if (!isObject(geometry) || geometry.type !== 'Point') fail(index, 'geometry must be a Point');
  const coordinates = geometry.coordinates;
  if (!Array.isArray(coordinates) || coordinates.length < 2 || coordinates.length > 3) {
    fail(index, 'Point coordinates must be [longitude, latitude] or [longitude, latitude, altitude]');
  }
  const [longitude, latitude] = coordinates as unknown[];
  if (typeof longitude !== 'number' || !Number.isFinite(longitude) || longitude < -180 || longitude > 180) {
    fail(index, 'longitude must be a number from -180 to 180');
  }
  if (typeof latitude !== 'number' || !Number.isFinite(latitude) || latitude < -90 || latitude > 90) {
    fail(index, 'latitude must be a number from -90 to 90');
  }
  const properties = feature.properties ?? {};
  if (!isObject(properties)) fail(index, 'properties must be an object or null');
  return { latitude, longitude, properties };
}

/** The error for feature `index`: "Feature 4 (features[3]): <problem>". */
export function featureError(index: number, problem: string): GeoJsonError {
  return new GeoJsonError(`${where(index)}: ${problem}`);
}
