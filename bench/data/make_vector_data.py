#!/usr/bin/python3
"""Writes the vector benchmark files with GDAL itself.

    /usr/bin/python3 bench/data/make_vector_data.py OUT_DIR [COUNT]

COUNT (default 1,000,000) rectangular footprints (four corners and the closing
vertex: five positions) with three attributes (egid integer, category string,
height real), clustered around towns spread over Switzerland like building
footprints, in Swiss LV95 (EPSG:2056). Writes OUT_DIR/buildings.gpkg and
OUT_DIR/buildings.shp.zip (the shapefile parts zipped, as a user uploads them).
Deterministic (fixed seed). Needs Debian's python3-gdal and python3-numpy.
"""
import os
import struct
import sys
import time

import numpy as np
from osgeo import gdal, ogr, osr

gdal.UseExceptions()

# A coarse outline of Switzerland in LV95 metres (clockwise from Basel).
OUTLINE = np.array([
    (2611000, 1270000), (2680000, 1286000), (2760000, 1270000), (2790000, 1240000),
    (2830000, 1200000), (2810000, 1150000), (2760000, 1130000), (2720000, 1090000),
    (2690000, 1080000), (2640000, 1100000), (2580000, 1080000), (2540000, 1100000),
    (2500000, 1117000), (2490000, 1140000), (2530000, 1190000), (2565000, 1245000),
])
CATEGORIES = ['residential', 'commercial', 'industrial', 'agricultural', 'public']


def inside_outline(e, n):
    """Ray casting, vectorised: which points lie inside OUTLINE."""
    inside = np.zeros(e.shape, dtype=bool)
    x0, y0 = OUTLINE[:, 0], OUTLINE[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    for a, b, c, d in zip(x0, y0, x1, y1):
        crosses = ((b > n) != (d > n)) & (e < (c - a) * (n - b) / (d - b + 1e-9) + a)
        inside ^= crosses
    return inside


def random_inside(rng, count):
    """`count` uniform points inside the outline."""
    out_e, out_n = [], []
    have = 0
    while have < count:
        e = rng.uniform(2485000, 2834000, count * 2)
        n = rng.uniform(1075000, 1296000, count * 2)
        keep = inside_outline(e, n)
        out_e.append(e[keep])
        out_n.append(n[keep])
        have += int(keep.sum())
    return np.concatenate(out_e)[:count], np.concatenate(out_n)[:count]


def footprint_centres(rng, count):
    """Building centres: 85% around 3,000 towns of Zipf-like sizes, 15% scattered."""
    towns = 3000
    town_e, town_n = random_inside(rng, towns)
    weight = 1.0 / np.arange(1, towns + 1) ** 0.9
    weight /= weight.sum()
    clustered = int(count * 0.85)
    town = rng.choice(towns, size=clustered, p=weight)
    spread = 300 + 4000 * np.sqrt(weight[town] / weight[0])  # metres, larger towns spread wider
    e = town_e[town] + rng.normal(0, 1, clustered) * spread
    n = town_n[town] + rng.normal(0, 1, clustered) * spread
    rural_e, rural_n = random_inside(rng, count - clustered)
    return np.concatenate([e, rural_e]), np.concatenate([n, rural_n])


def footprint_rings(rng, e, n):
    """Rotated rectangles around the centres: shape (count, 5, 2), closed rings."""
    count = e.size
    width = np.clip(rng.lognormal(np.log(12), 0.4, count), 4, 80)
    depth = width * rng.uniform(1.0, 2.5, count)
    angle = rng.uniform(0, np.pi, count)
    corners = np.array([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5)])
    dx = corners[None, :, 0] * width[:, None]
    dy = corners[None, :, 1] * depth[:, None]
    cos, sin = np.cos(angle)[:, None], np.sin(angle)[:, None]
    ring = np.empty((count, 5, 2))
    ring[:, :, 0] = e[:, None] + dx * cos - dy * sin
    ring[:, :, 1] = n[:, None] + dx * sin + dy * cos
    return np.round(ring, 2)


def write_gpkg(path, rings, egid, category, height):
    """One GeoPackage feature table `buildings`, written through OGR in one transaction."""
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(2056)
    ds = ogr.GetDriverByName('GPKG').CreateDataSource(path)
    layer = ds.CreateLayer('buildings', srs, ogr.wkbPolygon, ['SPATIAL_INDEX=YES'])
    layer.CreateField(ogr.FieldDefn('egid', ogr.OFTInteger64))
    layer.CreateField(ogr.FieldDefn('category', ogr.OFTString))
    layer.CreateField(ogr.FieldDefn('height', ogr.OFTReal))
    definition = layer.GetLayerDefn()
    # WKB polygon with one ring of five points: byte order, type 3, 1 ring, 5 points.
    head = struct.pack('<BIII', 1, 3, 1, 5)
    layer.StartTransaction()
    for i in range(rings.shape[0]):
        feature = ogr.Feature(definition)
        feature.SetField(0, int(egid[i]))
        feature.SetField(1, CATEGORIES[category[i]])
        feature.SetField(2, float(height[i]))
        feature.SetGeometryDirectly(ogr.CreateGeometryFromWkb(head + rings[i].tobytes()))
        layer.CreateFeature(feature)
    layer.CommitTransaction()
    ds = None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    os.makedirs(out, exist_ok=True)
    started = time.time()
    rng = np.random.default_rng(20560)
    e, n = footprint_centres(rng, count)
    order = rng.permutation(count)  # source order is not spatial, as in many real files
    rings = footprint_rings(rng, e[order], n[order])
    egid = 190000000 + np.arange(count)
    category = rng.integers(0, len(CATEGORIES), count)
    height = np.round(rng.uniform(3, 40, count), 1)
    gpkg = os.path.join(out, 'buildings.gpkg')
    for stale in (gpkg, os.path.join(out, 'buildings.shp.zip')):
        if os.path.exists(stale):
            os.remove(stale)
    write_gpkg(gpkg, rings, egid, category, height)
    print(f'{gpkg}: {count} features, {os.path.getsize(gpkg) / 2**20:.0f} MB, {time.time() - started:.1f} s')
    started = time.time()
    shz = os.path.join(out, 'buildings.shp.zip')
    gdal.VectorTranslate(shz, gpkg, format='ESRI Shapefile')
    print(f'{shz}: {os.path.getsize(shz) / 2**20:.0f} MB, {time.time() - started:.1f} s')


if __name__ == '__main__':
    main()
