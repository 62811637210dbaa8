import type { Geometry, Position } from 'geojson';

/**
 * GeoJSON geometry to GeoPackage geometry BLOB: the GeoPackageBinary header of GeoPackage 1.3
 * §2.1.3 followed by OGC Well-Known Binary (ISO 19125-1 / OGC 06-103r4 §8.2), 2D, little-endian.
 * (No maintained WKB package exists on npm, and this is short.)
 *
 *   header  'G' 'P' | version 0 | flags | srs_id int32 | envelope [minx, maxx, miny, maxy] (4 doubles)
 *   flags   bits 7-6 reserved 0, bit 5 X = 0 (standard binary), bit 4 Y = 1 if empty,
 *           bits 3-1 E = envelope indicator (0 none, 1 = xy), bit 0 B = 1 (little-endian)
 *   WKB     byte order 1 | uint32 type | body; Point x y; LineString n then n points; Polygon
 *           ring count then each ring as a LineString body; Multi* and GeometryCollection a
 *           count then each member as a whole WKB geometry (own byte order and type).
 *
 * Points get no envelope (GDAL does the same: the point is its own envelope); empty
 * geometries get none either (§2.1.3: the envelope of an empty geometry is absent or NaN) and
 * the empty flag, an empty Point being POINT(NaN NaN). Z values (third positions) are dropped.
 *
 * `GeometryEncoder.encode` writes into one reused buffer: no intermediate objects, its size
 * computed first, the envelope kept while the coordinates are written.
 */

/** A parsed GeoJSON geometry (RFC 7946), as @types/geojson declares it. */
export type GeoJsonGeometry = Geometry;

const WKB_CODES = {
  Point: 1,
  LineString: 2,
  Polygon: 3,
  MultiPoint: 4,
  MultiLineString: 5,
  MultiPolygon: 6,
  GeometryCollection: 7,
} as const;

export type GeometryTypeName = keyof typeof WKB_CODES;

/** The Multi* type holding a geometry type (for promotion of single geometries). */
export const MULTI_OF: Partial<Record<GeometryTypeName, GeometryTypeName>> = {
  Point: 'MultiPoint',
  LineString: 'MultiLineString',
  Polygon: 'MultiPolygon',
};

export class GeometryEncoder {
  /** Envelope of the last encoded geometry (Infinity / -Infinity when it was empty). */
  minX = Infinity;
  maxX = -Infinity;
  minY = Infinity;
  maxY = -Infinity;
  /** Whether the last encoded geometry had no position. */
  empty = false;
  private buf = Buffer.allocUnsafe(1 << 16);
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  private at = 0;
  private positions = 0;

  constructor(readonly srsId: number) {}

  /**
   * The GeoPackage BLOB of `g`, wrapped in a one-member `asMulti` collection if given (a
   * Polygon written as a MultiPolygon). The answer is a view of a reused buffer, valid until
   * the next call: bind or copy it at once.
   */
  encode(g: Geometry, asMulti?: GeometryTypeName): Buffer {
    this.positions = 0;
    const wkbSize = (asMulti ? 9 : 0) + this.sizeOf(g);
    this.empty = this.positions === 0;
    const envelope = this.empty || (g.type === 'Point' && !asMulti) ? 0 : 1;
    const size = 8 + 32 * envelope + wkbSize;
    if (size > this.buf.length) {
      this.buf = Buffer.allocUnsafe(Math.max(size, 2 * this.buf.length));
      this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    }
    this.minX = this.minY = Infinity;
    this.maxX = this.maxY = -Infinity;
    const view = this.view;
    this.at = 8 + 32 * envelope;
    if (asMulti) this.typeAndCount(WKB_CODES[asMulti], 1);
    this.write(g);
    view.setUint16(0, 0x4750); // 'GP'
    view.setUint8(2, 0); // version 1 (0 in the file)
    view.setUint8(3, (this.empty ? 0x10 : 0) | (envelope << 1) | 1);
    view.setInt32(4, this.srsId, true);
    if (envelope) {
      view.setFloat64(8, this.minX, true);
      view.setFloat64(16, this.maxX, true);
      view.setFloat64(24, this.minY, true);
      view.setFloat64(32, this.maxY, true);
    }
    return this.buf.subarray(0, size);
  }

  /** Bytes of the WKB of `g`; counts its positions. */
  private sizeOf(g: Geometry): number {
    switch (g.type) {
      case 'Point':
        if (g.coordinates.length >= 2) this.positions++;
        return 21;
      case 'LineString':
        this.positions += g.coordinates.length;
        return 9 + 16 * g.coordinates.length;
      case 'MultiPoint':
        this.positions += g.coordinates.length;
        return 9 + 21 * g.coordinates.length;
      case 'Polygon':
        return 9 + this.ringsSize(g.coordinates);
      case 'MultiLineString':
        return 9 + this.ringsSize(g.coordinates) + 5 * g.coordinates.length;
      case 'MultiPolygon': {
        let size = 9;
        for (const polygon of g.coordinates) size += 9 + this.ringsSize(polygon);
        return size;
      }
      case 'GeometryCollection': {
        let size = 9;
        for (const member of g.geometries) size += this.sizeOf(member);
        return size;
      }
      default:
        throw new TypeError(`Unknown GeoJSON geometry type ${(g as { type: unknown }).type}`);
    }
  }

  /** Bytes of lines as a polygon's rings: each a count and its positions. */
  private ringsSize(lines: Position[][]): number {
    let size = 0;
    for (const line of lines) {
      size += 4 + 16 * line.length;
      this.positions += line.length;
    }
    return size;
  }

  private write(g: Geometry): void {
    switch (g.type) {
      case 'Point':
        this.typeAndCount(1, -1);
        if (g.coordinates.length < 2) this.xy(NaN, NaN);
        else this.point(g.coordinates);
        return;
      case 'LineString':
        this.typeAndCount(2, g.coordinates.length);
        return this.line(g.coordinates);
      case 'Polygon':
        return this.polygon(g.coordinates);
      case 'MultiPoint':
        this.typeAndCount(4, g.coordinates.length);
        for (const p of g.coordinates) {
          this.typeAndCount(1, -1);
          this.point(p);
        }
        return;
      case 'MultiLineString':
        this.typeAndCount(5, g.coordinates.length);
        for (const line of g.coordinates) {
          this.typeAndCount(2, line.length);
          this.line(line);
        }
        return;
      case 'MultiPolygon':
        this.typeAndCount(6, g.coordinates.length);
        for (const polygon of g.coordinates) this.polygon(polygon);
        return;
      case 'GeometryCollection':
        this.typeAndCount(7, g.geometries.length);
        for (const member of g.geometries) this.write(member);
    }
  }

  /** Byte order, type code and (unless -1) a count. */
  private typeAndCount(code: number, count: number): void {
    this.view.setUint8(this.at, 1);
    this.view.setUint32(this.at + 1, code, true);
    this.at += 5;
    if (count >= 0) {
      this.view.setUint32(this.at, count, true);
      this.at += 4;
    }
  }

  private polygon(rings: Position[][]): void {
    this.typeAndCount(3, rings.length);
    for (const ring of rings) {
      this.view.setUint32(this.at, ring.length, true);
      this.at += 4;
      this.line(ring);
    }
  }

  private point(p: Position): void {
    this.xy(p[0]!, p[1]!);
    if (p[0]! < this.minX) this.minX = p[0]!;
    if (p[0]! > this.maxX) this.maxX = p[0]!;
    if (p[1]! < this.minY) this.minY = p[1]!;
    if (p[1]! > this.maxY) this.maxY = p[1]!;
  }

  /** The positions of a line, the envelope kept in locals. */
  private line(line: Position[]): void {
    const view = this.view;
    let { at, minX, maxX, minY, maxY } = this;
    for (let i = 0; i < line.length; i++) {
      const p = line[i]!;
      const x = p[0]!;
      const y = p[1]!;
      view.setFloat64(at, x, true);
      view.setFloat64(at + 8, y, true);
      at += 16;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
    this.at = at;
    this.minX = minX;
    this.maxX = maxX;
    this.minY = minY;
    this.maxY = maxY;
  }

  private xy(x: number, y: number): void {
    this.view.setFloat64(this.at, x, true);
    this.view.setFloat64(this.at + 8, y, true);
    this.at += 16;
  }
}

/** The plain ISO WKB of a geometry (a copy): the GeoPackage BLOB without its header. */
export function toWkb(g: Geometry): Buffer {
  const blob = new GeometryEncoder(0).encode(g);
  const flags = blob[3]!;
  return Buffer.from(blob.subarray(8 + ((flags >> 1) & 7 ? 32 : 0)));
}
