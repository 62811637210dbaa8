#!/usr/bin/python3
"""Writes the raster benchmark inputs with GDAL (Debian's python3-gdal and numpy).

  terrain-f32.tif  one Float32 band, ~1 GB uncompressed, EPSG:2056 (Swiss LV95), 2 m pixels:
                   a smooth terrain-like field (fractal value noise, 350 to 4200 m) with a
                   lake of nodata (-9999)
  rgb-u8.tif       three 8-bit bands, ~790 MB uncompressed, EPSG:2056, 2 m pixels: the same
                   terrain coloured by height and hill-shaded, like a shaded relief map

Both are plain striped GeoTIFFs, the way many tools export them. Usage:
  /usr/bin/python3 bench/data/make_raster_data.py OUT_DIR [--scale 0.25] [--only terrain|rgb]
--scale shrinks both sides (0.25 gives 1/16 of the size) for quick runs.
"""
import argparse
import os
import sys

import numpy as np
from osgeo import gdal, osr

gdal.UseExceptions()
gdal.SetCacheMax(256 * 2**20)  # GDAL's write cache; its default (5% of RAM) only costs memory here

FULL_WIDTH, FULL_HEIGHT = 16384, 16000
PIXEL = 2.0
ORIGIN = (2_585_000.0, 1_215_000.0)  # upper-left corner, near Bern
NODATA = -9999.0
ROWS_PER_PASS = 512


def octave_grids(width, height, seed):
    """Random coarse grids, one per octave: (cell size in pixels, weight, grid)."""
    rng = np.random.default_rng(seed)
    octaves = []
    for cell, weight in ((4096, 1.0), (1024, 0.45), (256, 0.18), (64, 0.06), (16, 0.02)):
        cell = max(2, int(cell * width / FULL_WIDTH)) if width < FULL_WIDTH else cell
        grid = rng.random((height // cell + 3, width // cell + 3), dtype=np.float32)
        octaves.append((cell, weight, grid))
    return octaves


def terrain_rows(octaves, width, row0, rows):
    """Heights of rows [row0, row0+rows): smoothstep-interpolated value noise, in metres."""
    ys = np.arange(row0, row0 + rows, dtype=np.float32)[:, None]
    xs = np.arange(width, dtype=np.float32)[None, :]
    total = np.zeros((rows, width), dtype=np.float32)
    for cell, weight, grid in octaves:
        fy, fx = ys / cell, xs / cell
        iy, ix = fy.astype(np.int32), fx.astype(np.int32)
        ty, tx = fy - iy, fx - ix
        ty, tx = ty * ty * (3 - 2 * ty), tx * tx * (3 - 2 * tx)
        top = grid[iy, ix] * (1 - tx) + grid[iy, ix + 1] * tx
        bottom = grid[iy + 1, ix] * (1 - tx) + grid[iy + 1, ix + 1] * tx
        total += weight * (top * (1 - ty) + bottom * ty)
    total /= sum(w for _, w, _ in octaves)
    return (350.0 + 3850.0 * total**1.6).astype(np.float32)


def create(path, width, height, bands, data_type):
    """An uncompressed striped GeoTIFF in EPSG:2056 (BigTIFF only if needed)."""
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(2056)
    dataset = gdal.GetDriverByName('GTiff').Create(
        path, width, height, bands, data_type, ['BIGTIFF=IF_NEEDED', 'INTERLEAVE=PIXEL'])
    scale = FULL_WIDTH / width
    dataset.SetGeoTransform((ORIGIN[0], PIXEL * scale, 0, ORIGIN[1], 0, -PIXEL * scale))
    dataset.SetProjection(srs.ExportToWkt())
    return dataset


def write_terrain(path, width, height, octaves):
    dataset = create(path, width, height, 1, gdal.GDT_Float32)
    band = dataset.GetRasterBand(1)
    band.SetNoDataValue(NODATA)
    lake = (width * 0.7, height * 0.3, width * 0.06)  # centre x, y and radius in pixels
    for row0 in range(0, height, ROWS_PER_PASS):
        rows = min(ROWS_PER_PASS, height - row0)
        heights = terrain_rows(octaves, width, row0, rows)
        ys, xs = np.ogrid[row0:row0 + rows, 0:width]
        heights[(xs - lake[0]) ** 2 + (ys - lake[1]) ** 2 < lake[2] ** 2] = NODATA
        band.WriteArray(heights, 0, row0)
        progress(row0 + rows, height, 'terrain')
    dataset.FlushCache()


def write_rgb(path, width, height, octaves):
    dataset = create(path, width, height, 3, gdal.GDT_Byte)
    for index, name in enumerate(('Red', 'Green', 'Blue'), 1):
        dataset.GetRasterBand(index).SetColorInterpretation(getattr(gdal, f'GCI_{name}Band'))
    stops = np.array([350, 800, 1500, 2200, 3000, 4200], dtype=np.float32)
    colours = np.array([[70, 120, 60], [120, 160, 80], [170, 160, 110], [140, 120, 100],
                        [200, 200, 200], [255, 255, 255]], dtype=np.float32)
    for row0 in range(0, height, ROWS_PER_PASS):
        rows = min(ROWS_PER_PASS, height - row0)
        # One extra row above and below for the slope of the shading.
        first = max(0, row0 - 1)
        heights = terrain_rows(octaves, width, first, min(height, row0 + rows + 1) - first)
        dy, dx = np.gradient(heights, PIXEL * FULL_WIDTH / width)
        shade = np.clip(0.6 + 0.4 * (-dx - dy) / np.sqrt(1 + dx * dx + dy * dy), 0.2, 1.0)
        shade = shade[row0 - first:row0 - first + rows]
        heights = heights[row0 - first:row0 - first + rows]
        for index in range(3):
            channel = np.interp(heights, stops, colours[:, index]) * shade
            dataset.GetRasterBand(index + 1).WriteArray(channel.astype(np.uint8), 0, row0)
        progress(row0 + rows, height, 'rgb')
    dataset.FlushCache()


def progress(done, total, name):
    sys.stderr.write(f'\r{name}: {100 * done // total}%')
    if done == total:
        sys.stderr.write('\n')


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('out_dir')
    parser.add_argument('--scale', type=float, default=1.0)
    parser.add_argument('--only', choices=('terrain', 'rgb'))
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    width, height = int(FULL_WIDTH * args.scale), int(FULL_HEIGHT * args.scale)
    octaves = octave_grids(width, height, seed=2056)
    if args.only in (None, 'terrain'):
        write_terrain(os.path.join(args.out_dir, 'terrain-f32.tif'), width, height, octaves)
    if args.only in (None, 'rgb'):
        write_rgb(os.path.join(args.out_dir, 'rgb-u8.tif'), width, height, octaves)


if __name__ == '__main__':
    main()
