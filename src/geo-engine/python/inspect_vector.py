"""Lists the feature tables of a vector file as JSON, for src/geo/vector/inspect.ts.

    /usr/bin/python3 inspect_vector.py '{"path": ..., "driver": "GPKG", "openOptions": [...]}'

Opens the file with the one GDAL driver named (so a file cannot pose as another format),
and prints {"driver", "tables": [{name, featureCount, geometryType, crs, extent,
wgs84Extent, firstOutsideLonLat, firstNonFinite, fidColumn, fidRange, fields}]} where fields lists the
attribute fields as {name, type, subtype} (OGR's type and subtype names), and geometryType is OGR's flattened type name
("Unknown" when the table declares none and holds several), crs is {authority, code,
name, geographic} or null, extent is [minx, miny, maxx, maxy] in the table's own CRS
(null when it has no geometry) and wgs84Extent the same in longitude/latitude. For a
table in a geographic CRS or none whose extent passes longitude/latitude bounds,
firstOutsideLonLat is the position (1-based, reading order) of the first feature that
does. A table whose coordinates include a number that is not finite (a GeoJSON `1e309` is
Infinity) has extent and wgs84Extent null and firstNonFinite the position of the first
feature holding one (else firstNonFinite is null). fidRange is [first, last] FID where a filter on FIDs is fast (GeoPackage,
shapefile), so that a table can be read in parts. Tables without a geometry column are left out. A failure prints GDAL's reason as "ERROR 1: ..." on stderr
and exits 1. With "readerChecksLonLat" (a GeoJSON whose features are read, and every position
checked, without GDAL), a table in EPSG:4326 or OGC:CRS84 is not measured: extent and wgs84Extent
are null. With "assignCrs" (e.g. "EPSG:2056") every table is taken to be in that CRS,
whatever it declares; a CRS PROJ does not know prints {"unknownCrs": true, "tables": []}.
"""
import json
import math
import sys

from osgeo import gdal, ogr, osr

gdal.UseExceptions()
ogr.UseExceptions()
osr.UseExceptions()


def crs_of(srs):
    """Authority and code of a CRS when GDAL can tell them (identifying ESRI .prj files too)."""
    if srs is None:
        return None
    candidate = srs.Clone()
    if candidate.GetAuthorityCode(None) is None:
        try:
            candidate.AutoIdentifyEPSG()
        except RuntimeError:
            matches = srs.FindMatches()
            if matches and matches[0][1] >= 70:
                candidate = matches[0][0]
    return {
        'authority': candidate.GetAuthorityName(None),
        'code': candidate.GetAuthorityCode(None),
        'name': srs.GetName(),
        'geographic': bool(srs.IsGeographic()),
    }


FOLDED = {'POINT': 'Point', 'MULTIPOINT': 'Point', 'LINESTRING': 'LineString',
          'MULTILINESTRING': 'LineString', 'POLYGON': 'Polygon', 'MULTIPOLYGON': 'Polygon'}


def geometry_type(dataset, layer):
    """The flattened declared type; for generic tables, the features' types folded (multi-parts
    counted as their part), "Unknown" when they differ, "None" when there is no geometry."""
    declared = ogr.GT_Flatten(layer.GetGeomType())
    if declared != ogr.wkbUnknown:
        return ogr.GeometryTypeToName(declared).replace(' ', '')
    name = layer.GetName().replace('"', '""')
    found = set()
    result = dataset.ExecuteSQL(f'SELECT DISTINCT OGR_GEOMETRY FROM "{name}"', dialect='OGRSQL')
    try:
        for row in result:
            value = row.GetField(0)
            if value:
                found.add(FOLDED.get(value.upper(), 'Unknown'))
    finally:
        dataset.ReleaseResultSet(result)
    return found.pop() if len(found) == 1 else ('Unknown' if found else 'None')


def wgs84_extent(srs, extent):
    """The extent in longitude/latitude (densified edges), or None when it cannot be transformed."""
    if srs is None or extent is None:
        return None
    target = osr.SpatialReference()
    target.ImportFromEPSG(4326)
    target.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    source = srs.Clone()
    source.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    try:
        transform = osr.CoordinateTransformation(source, target)
        return list(transform.TransformBounds(extent[0], extent[1], extent[2], extent[3], 21))
    except RuntimeError:
        return None


def first_outside_lonlat(layer):
    """Position (1-based, in reading order) of the first feature reaching past longitude
    -180..180 or latitude -90..90, or None."""
    layer.ResetReading()
    for index, feature in enumerate(layer, start=1):
        envelope = feature.GetGeometryRef().GetEnvelope() if feature.GetGeometryRef() else None
        if envelope and (envelope[0] < -180 or envelope[1] > 180 or envelope[2] < -90 or envelope[3] > 90):
            return index
        if index >= 10_000_000:
            return None
    return None


def first_non_finite(layer):
    """Position (1-based, in reading order) of the first feature with a coordinate that is not
    a finite number, or 0 when GDAL's extent saw one but no feature's envelope shows it."""
    layer.ResetReading()
    for index, feature in enumerate(layer, start=1):
        envelope = feature.GetGeometryRef().GetEnvelope() if feature.GetGeometryRef() else None
        if envelope and not all(math.isfinite(value) for value in envelope):
            return index
    return 0


def fid_range(dataset, layer, count):
    """[first, last] FID of a table whose FIDs can be filtered fast (GeoPackage, shapefile), else None."""
    driver = dataset.GetDriver().ShortName
    if driver == 'ESRI Shapefile':
        return [0, count - 1] if count > 0 else None
    if driver != 'GPKG' or not layer.GetFIDColumn():
        return None
    column = layer.GetFIDColumn().replace('"', '""')
    name = layer.GetName().replace('"', '""')
    result = dataset.ExecuteSQL(f'SELECT MIN("{column}"), MAX("{column}") FROM "{name}"')
    try:
        row = result.GetNextFeature()
        low, high = row.GetField(0), row.GetField(1)
    finally:
        dataset.ReleaseResultSet(result)
    return [int(low), int(high)] if low is not None else None


def is_lonlat(srs):
    """Whether the CRS is WGS84 longitude/latitude as GeoJSON's are (EPSG:4326 or OGC:CRS84)."""
    crs = crs_of(srs)
    return crs is not None and (crs['authority'], crs['code']) in (('EPSG', '4326'), ('OGC', 'CRS84'))


def describe(dataset, layer, assigned, reader_checks_lonlat):
    count = layer.GetFeatureCount(True)
    srs = assigned or layer.GetSpatialRef()
    extent = None
    # The reader checks every position of such a table itself: GDAL's extent would be a second pass.
    skip_extent = reader_checks_lonlat and assigned is None and is_lonlat(srs)
    if count > 0 and not skip_extent:
        try:
            minx, maxx, miny, maxy = layer.GetExtent(True)
            extent = [minx, miny, maxx, maxy]
        except RuntimeError:
            extent = None
    non_finite = None
    if extent and not all(math.isfinite(value) for value in extent):
        non_finite = first_non_finite(layer)
        extent = None
    outside = None
    if (srs is None or srs.IsGeographic()) and extent and (extent[0] < -180 or extent[2] > 180 or extent[1] < -90 or extent[3] > 90):
        outside = first_outside_lonlat(layer)
    return {
        'name': layer.GetName(),
        'firstOutsideLonLat': outside,
        'firstNonFinite': non_finite,
        'fidColumn': layer.GetFIDColumn() or None,
        'fidRange': fid_range(dataset, layer, count),
        'featureCount': count,
        'geometryType': geometry_type(dataset, layer),
        'crs': crs_of(srs),
        'extent': extent,
        'wgs84Extent': wgs84_extent(srs, extent),
        'fields': fields_of(layer),
    }


def fields_of(layer):
    """The attribute fields in the table's order, with OGR's type and subtype names."""
    definition = layer.GetLayerDefn()
    fields = []
    for index in range(definition.GetFieldCount()):
        field = definition.GetFieldDefn(index)
        fields.append({
            'name': field.GetName(),
            'type': ogr.GetFieldTypeName(field.GetType()),
            'subtype': ogr.GetFieldSubTypeName(field.GetSubType()),
        })
    return fields


def main():
    request = json.loads(sys.argv[1])
    assigned = None
    if request.get('assignCrs'):
        assigned = osr.SpatialReference()
        try:
            assigned.SetFromUserInput(request['assignCrs'])
        except RuntimeError:
            json.dump({'unknownCrs': True, 'tables': []}, sys.stdout)
            return
        assigned.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    dataset = gdal.OpenEx(
        request['path'],
        gdal.OF_VECTOR | gdal.OF_READONLY | gdal.OF_VERBOSE_ERROR,
        allowed_drivers=[request['driver']],
        open_options=request.get('openOptions', []),
    )
    tables = []
    for index in range(dataset.GetLayerCount()):
        layer = dataset.GetLayer(index)
        if layer.GetLayerDefn().GetGeomFieldCount() == 0:
            continue
        tables.append(describe(dataset, layer, assigned, bool(request.get('readerChecksLonLat'))))
    # allow_nan=False: a value that is not finite fails here (exit 1) rather than printing `Infinity`.
    json.dump({'driver': dataset.GetDriver().ShortName, 'tables': tables}, sys.stdout, allow_nan=False)


if __name__ == '__main__':
    try:
        main()
    except Exception as error:  # GDAL's RuntimeError, or a file the driver refuses
        message = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
        sys.stderr.write(f'ERROR 1: {message}\n')
        sys.exit(1)
