import { closeSync, openSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { GeometryEncoder, MULTI_OF, type GeoJsonGeometry, type GeometryTypeName } from '../geo/gpkg/wkb.js';

/**
 * Writes a GeoPackage 1.3 (http://www.opengis.net/doc/IS/geopackage/1.3) straight with
 * better-sqlite3: feature tables (EPSG:4326, geometry column `geom`, each with its R*Tree
 * spatial index) and attribute tables, as one fast, synchronous pass meant for a worker thread.
 *
 * Speed: the file is a fresh temporary one, so it is written with `journal_mode=OFF`,
 * `synchronous=OFF` and an exclusive lock (a crash leaves a file the caller discards), in
 * transactions of BATCH_ROWS rows, through one prepared INSERT per table bound from a reused
 * parameter array; geometries are encoded into a reused buffer (wkb.ts), which also gives
 * the envelope for the R*Tree row (inserted by `add` itself) and the table's extent.
 *
 * GDAL compatibility: the core tables are created with GDAL 3.6's own statements, plus GDAL's
 * `gpkg_ogr_contents` (fast feature counts). The R*Tree triggers of GeoPackage 1.3 Annex F.3
 * (`insert`, `update1`..`update4`, `delete`, in GDAL 3.6's text, which its validator checks
 * for; GeoPackage 1.4's `update5`..`update7` replace `update1` and `update3`) call GDAL's
 * ST_* SQL functions: they and GDAL's feature count triggers are created by `close()` only,
 * after the rows, so that writing here needs none of those functions, and the file stays
 * editable by GDAL and QGIS afterwards. `close()` also writes each table's extent and count.
 *
 * Values are bound as given: numbers, bigints, strings, Buffers (BLOB) or null; booleans as
 * 0/1, DATE as 'YYYY-MM-DD' and DATETIME as 'YYYY-MM-DDTHH:MM:SS.SSSZ' text (GPKG §1.1.1.1.1).
 */

export type GpkgColumnType = 'INTEGER' | 'REAL' | 'TEXT' | 'BLOB' | 'DATE' | 'DATETIME' | 'BOOLEAN';
export interface GpkgColumn {
  name: string;
  type: GpkgColumnType;
  notNull?: boolean;
}
export type GpkgGeometryType =
  | 'POINT'
  | 'LINESTRING'
  | 'POLYGON'
  | 'MULTIPOINT'
  | 'MULTILINESTRING'
  | 'MULTIPOLYGON'
  | 'GEOMETRY';
export type SqlValue = string | number | bigint | Buffer | null;

export interface FeatureTableWriter {
  /**
   * One feature: `fid` null takes the next number; `geometry` a GeoJSON geometry or null
   * (SQL NULL). A Point, LineString or Polygon in a MULTI* table is written as a one-member
   * multi geometry; any other type that the table's type excludes is refused (TypeError).
   * `values` in the order of the columns. Inserts the R*Tree entry too (unless null or empty).
   */
  add(fid: number | null, geometry: GeoJsonGeometry | null, values: SqlValue[]): void;
}
export interface AttributeTableWriter {
  add(values: SqlValue[]): void;
}
interface TableOptions {
  identifier?: string;
  description?: string;
}

/** Rows per transaction. */
const BATCH_ROWS = 10_000;
/** EPSG's code of WGS84, the CRS of every feature table written. */
const WGS84 = 4326;

/** From `gdalsrsinfo -o wkt1 EPSG:4326` / `EPSG:3857` (GDAL 3.6), as GDAL writes them into gpkg_spatial_ref_sys. */
const WKT_4326 =
  'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]';
const WKT_3857 =
  'PROJCS["WGS 84 / Pseudo-Mercator",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]],PROJECTION["Mercator_1SP"],PARAMETER["central_meridian",0],PARAMETER["scale_factor",1],PARAMETER["false_easting",0],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],EXTENSION["PROJ4","+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs"],AUTHORITY["EPSG","3857"]]';

/** GeoPackage 1.3 §1.1.2 (srs), §1.1.3 (contents), §2.1.5 (geometry columns), §2.3 (extensions), as GDAL 3.6 creates them. */
const SCHEMA = `
CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL,srs_id INTEGER NOT NULL PRIMARY KEY,organization TEXT NOT NULL,organization_coordsys_id INTEGER NOT NULL,definition  TEXT NOT NULL,description TEXT);
CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY,data_type TEXT NOT NULL,identifier TEXT UNIQUE,description TEXT DEFAULT '',last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),min_x DOUBLE, min_y DOUBLE,max_x DOUBLE, max_y DOUBLE,srs_id INTEGER,CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
CREATE TABLE gpkg_ogr_contents(table_name TEXT NOT NULL PRIMARY KEY,feature_count INTEGER DEFAULT NULL);
CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL,column_name TEXT NOT NULL,geometry_type_name TEXT NOT NULL,srs_id INTEGER NOT NULL,z TINYINT NOT NULL,m TINYINT NOT NULL,CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),CONSTRAINT uk_gc_table_name UNIQUE (table_name),CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
CREATE TABLE gpkg_extensions (table_name TEXT,column_name TEXT,extension_name TEXT NOT NULL,definition TEXT NOT NULL,scope TEXT NOT NULL,CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
INSERT INTO gpkg_spatial_ref_sys VALUES
  ('Undefined Cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined Cartesian coordinate reference system'),
  ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system'),
  ('WGS 84 geodetic', 4326, 'EPSG', 4326, '${WKT_4326}', 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid'),
  ('WGS 84 / Pseudo-Mercator', 3857, 'EPSG', 3857, '${WKT_3857}', NULL);`;

/** The GeoJSON type each geometry column type holds (null: any). */
const GEOJSON_TYPE: Record<GpkgGeometryType, GeometryTypeName | null> = {
  POINT: 'Point',
  LINESTRING: 'LineString',
  POLYGON: 'Polygon',
  MULTIPOINT: 'MultiPoint',
  MULTILINESTRING: 'MultiLineString',
  MULTIPOLYGON: 'MultiPolygon',
  GEOMETRY: null,
};

/** An SQL identifier in double quotes; a string literal in single quotes. */
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** A table written so far: its row count and (feature tables) the extent of its envelopes. */
interface Written {
  name: string;
  features: boolean;
  rows: number;
  extent: [minX: number, minY: number, maxX: number, maxY: number];
}

/** GDAL 3.6's R*Tree triggers (GeoPackage 1.3 Annex F.3, `gpkg_rtree_index`) for a feature table. */
function rtreeTriggers(table: string): string {
  const [t, r] = [quote(table), quote(`rtree_${table}_geom`)];
  const trigger = (suffix: string) => `CREATE TRIGGER ${quote(`rtree_${table}_geom_${suffix}`)} AFTER`;
  const bbox = `NEW."fid",ST_MinX(NEW."geom"), ST_MaxX(NEW."geom"),ST_MinY(NEW."geom"), ST_MaxY(NEW."geom")`;
  return `
${trigger('insert')} INSERT ON ${t} WHEN (new."geom" NOT NULL AND NOT ST_IsEmpty(NEW."geom")) BEGIN INSERT OR REPLACE INTO ${r} VALUES (${bbox}); END;
${trigger('update1')} UPDATE OF "geom" ON ${t} WHEN OLD."fid" = NEW."fid" AND (NEW."geom" NOTNULL AND NOT ST_IsEmpty(NEW."geom")) BEGIN INSERT OR REPLACE INTO ${r} VALUES (${bbox}); END;
${trigger('update2')} UPDATE OF "geom" ON ${t} WHEN OLD."fid" = NEW."fid" AND (NEW."geom" ISNULL OR ST_IsEmpty(NEW."geom")) BEGIN DELETE FROM ${r} WHERE id = OLD."fid"; END;
${trigger('update3')} UPDATE ON ${t} WHEN OLD."fid" != NEW."fid" AND (NEW."geom" NOTNULL AND NOT ST_IsEmpty(NEW."geom")) BEGIN DELETE FROM ${r} WHERE id = OLD."fid"; INSERT OR REPLACE INTO ${r} VALUES (${bbox}); END;
${trigger('update4')} UPDATE ON ${t} WHEN OLD."fid" != NEW."fid" AND (NEW."geom" ISNULL OR ST_IsEmpty(NEW."geom")) BEGIN DELETE FROM ${r} WHERE id IN (OLD."fid", NEW."fid"); END;
${trigger('delete')} DELETE ON ${t} WHEN old."geom" NOT NULL BEGIN DELETE FROM ${r} WHERE id = OLD."fid"; END;`;
}

/** GDAL's triggers that keep gpkg_ogr_contents.feature_count right. */
function countTriggers(table: string): string {
  const [t, where] = [quote(table), `WHERE lower(table_name) = lower(${literal(table)})`];
  return `
CREATE TRIGGER ${quote(`trigger_insert_feature_count_${table}`)} AFTER INSERT ON ${t} BEGIN UPDATE gpkg_ogr_contents SET feature_count = feature_count + 1 ${where}; END;
CREATE TRIGGER ${quote(`trigger_delete_feature_count_${table}`)} AFTER DELETE ON ${t} BEGIN UPDATE gpkg_ogr_contents SET feature_count = feature_count - 1 ${where}; END;`;
}

export class GeoPackageWriter {
  private readonly written: Written[] = [];
  private readonly encoder = new GeometryEncoder(WGS84);
  private pending = 0;

  private constructor(private readonly db: SQLite.Database) {}

  /** Creates a new GeoPackage at `path` (the file must not exist). All feature tables are in EPSG:4326 (WGS 84 lon/lat). */
  static create(path: string): GeoPackageWriter {
    closeSync(openSync(path, 'wx')); // refuses an existing file; SQLite takes the empty one as a new database
    const db = new SQLite(path);
    try {
      db.pragma('application_id = 1196444487'); // 0x47504B47, 'GPKG'
      db.pragma('user_version = 10300');
      for (const setting of [
        'journal_mode = OFF',
        'synchronous = OFF',
        'locking_mode = EXCLUSIVE',
        'cache_size = -16384',
      ])
        db.pragma(setting);
      db.exec('BEGIN');
      db.exec(SCHEMA);
      return new GeoPackageWriter(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** A feature table: `fid INTEGER PRIMARY KEY AUTOINCREMENT`, geometry column `geom` of the type, then the columns. */
  featureTable(
    name: string,
    geometryType: GpkgGeometryType,
    columns: GpkgColumn[],
    options: TableOptions = {},
  ): FeatureTableWriter {
    const { db, encoder } = this;
    const table = this.table(
      name,
      'features',
      `"fid" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "geom" ${geometryType}`,
      columns,
      options,
    );
    const rtree = quote(`rtree_${name}_geom`);
    db.exec(`CREATE VIRTUAL TABLE ${rtree} USING rtree(id, minx, maxx, miny, maxy)`);
    db.prepare(`INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', ?, ${WGS84}, 0, 0)`).run(name, geometryType);
    db.prepare(
      `INSERT INTO gpkg_extensions VALUES (?, 'geom', 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')`,
    ).run(name);
    const insert = db.prepare(`INSERT INTO ${quote(name)} VALUES (?, ?${', ?'.repeat(columns.length)})`);
    const index = db.prepare(`INSERT INTO ${rtree} VALUES (?, ?, ?, ?, ?)`);
    const params: SqlValue[] = new Array(columns.length + 2);
    const expected = GEOJSON_TYPE[geometryType];
    const extent = table.extent;
    return {
      add: (fid, geometry, values) => {
        if (values.length !== columns.length)
          throw new TypeError(`${name}: ${values.length} values for ${columns.length} columns`);
        let blob: Buffer | null = null;
        if (geometry) {
          const type = geometry.type;
          if (expected === null || type === expected) blob = encoder.encode(geometry);
          else if (MULTI_OF[type] === expected) blob = encoder.encode(geometry, expected);
          else throw new TypeError(`${name}: a ${type} cannot be written to a ${geometryType} table`);
        }
        params[0] = fid;
        params[1] = blob;
        for (let i = 0; i < values.length; i++) params[i + 2] = values[i]!;
        const id = insert.run(params).lastInsertRowid;
        if (blob && !encoder.empty) {
          const { minX, maxX, minY, maxY } = encoder;
          index.run(id, minX, maxX, minY, maxY);
          if (minX < extent[0]) extent[0] = minX;
          if (minY < extent[1]) extent[1] = minY;
          if (maxX > extent[2]) extent[2] = maxX;
          if (maxY > extent[3]) extent[3] = maxY;
        }
        this.added(table);
      },
    };
  }

  /** An attribute table (gpkg_contents data_type 'attributes'): `fid INTEGER PRIMARY KEY AUTOINCREMENT` (GDAL's name; the caller's columns may have an `id`) then the columns. */
  attributeTable(name: string, columns: GpkgColumn[], options: TableOptions = {}): AttributeTableWriter {
    const table = this.table(name, 'attributes', '"fid" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL', columns, options);
    const insert = this.db.prepare(`INSERT INTO ${quote(name)} VALUES (NULL${', ?'.repeat(columns.length)})`);
    return {
      add: (values) => {
        if (values.length !== columns.length)
          throw new TypeError(`${name}: ${values.length} values for ${columns.length} columns`);
        insert.run(values);
        this.added(table);
      },
    };
  }

  /** Finishes: writes extents, counts and triggers, commits and closes the file. Does nothing once closed. */
  close(): void {
    const { db } = this;
    if (!db.open) return;
    const contents = db.prepare(
      "UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ?, last_change = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE table_name = ?",
    );
    const count = db.prepare('UPDATE gpkg_ogr_contents SET feature_count = ? WHERE table_name = ?');
    for (const { name, features, rows, extent } of this.written) {
      contents.run(...(extent[0] <= extent[2] ? extent : [null, null, null, null]), name);
      count.run(rows, name);
      db.exec((features ? rtreeTriggers(name) : '') + countTriggers(name));
    }
    db.exec('COMMIT');
    db.close();
  }

  /** Closes without finishing (after an error); the caller deletes the file. */
  abort(): void {
    if (this.db.open) this.db.close();
  }

  /** Creates a table and registers it in gpkg_contents and gpkg_ogr_contents. */
  private table(
    name: string,
    kind: 'features' | 'attributes',
    key: string,
    columns: GpkgColumn[],
    options: TableOptions,
  ): Written {
    const definitions = columns.map((c) => `, ${quote(c.name)} ${c.type}${c.notNull ? ' NOT NULL' : ''}`).join('');
    this.db.exec(`CREATE TABLE ${quote(name)} (${key}${definitions})`);
    this.db
      .prepare(
        'INSERT INTO gpkg_contents (table_name, data_type, identifier, description, srs_id) VALUES (?, ?, ?, ?, ?)',
      )
      .run(name, kind, options.identifier ?? name, options.description ?? '', kind === 'features' ? WGS84 : null);
    this.db.prepare('INSERT INTO gpkg_ogr_contents VALUES (?, 0)').run(name);
    const table: Written = {
      name,
      features: kind === 'features',
      rows: 0,
      extent: [Infinity, Infinity, -Infinity, -Infinity],
    };
    this.written.push(table);
    return table;
  }

  /** Counts a row; commits every BATCH_ROWS rows. */
  private added(table: Written): void {
    table.rows++;
    if (++this.pending >= BATCH_ROWS) {
      this.db.exec('COMMIT; BEGIN');
      this.pending = 0;
    }
  }
}
