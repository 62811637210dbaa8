#!/usr/bin/python3
"""Writes src/geo/raster/colormaps.json: 256 colours per colormap, taken from matplotlib.

Run once when the list changes (needs Debian's python3-matplotlib; the generated table is
committed, so neither the service nor its tests need matplotlib):
  /usr/bin/python3 scripts/make-colormaps.py

Each colour is what matplotlib itself renders for the 256 steps of the map
(`cmap(range(256), bytes=True)`), so a value at step i gets exactly matplotlib's colour.
Names are matplotlib's in lower case (`RdYlGn` -> `rdylgn`, `gray` and `greys` both kept).
"""
import json
import os

import matplotlib
import numpy as np

NAMES = [
    # Required by docs/contract-decisions.md.
    'viridis', 'plasma', 'inferno', 'magma', 'cividis', 'terrain', 'gray', 'jet', 'turbo',
    'Spectral', 'RdYlGn', 'RdBu', 'Blues', 'Greens', 'Reds', 'YlOrRd', 'hot', 'coolwarm',
    # Other widely used ones.
    'Greys', 'Purples', 'Oranges', 'YlGnBu', 'YlGn', 'YlOrBr', 'PuBu', 'BuGn', 'RdYlBu',
    'BrBG', 'PiYG', 'PuOr', 'seismic', 'bwr', 'rainbow', 'gist_earth', 'ocean', 'cubehelix',
    'twilight', 'copper', 'bone',
]
OUT = os.path.join(os.path.dirname(__file__), '..', 'src', 'geo', 'raster', 'colormaps.json')


def table(name):
    """matplotlib's 256 colours of the map as '#rrggbb' strings."""
    cmap = matplotlib.colormaps[name]
    if cmap.N != 256:
        cmap = cmap.resampled(256)
    rgba = cmap(np.arange(256), bytes=True)
    return ['#%02x%02x%02x' % tuple(int(c) for c in colour[:3]) for colour in rgba]


def main():
    maps = {name.lower(): table(name) for name in NAMES}
    document = {
        'source': f'matplotlib {matplotlib.__version__}, cmap(range(256), bytes=True)',
        'colormaps': maps,
    }
    with open(OUT, 'w') as out:
        out.write('{\n')
        out.write(f'  "source": {json.dumps(document["source"])},\n')
        out.write('  "colormaps": {\n')
        lines = [f'    {json.dumps(name)}: {json.dumps(colours)}' for name, colours in maps.items()]
        out.write(',\n'.join(lines))
        out.write('\n  }\n}\n')
    print(f'{len(maps)} colormaps written to {os.path.normpath(OUT)}')


if __name__ == '__main__':
    main()
