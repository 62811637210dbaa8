import { useEffect, useState } from 'preact/hooks';
import type { Colormap, RasterLayer } from '../api/types';
import { legendEntries, orderedLayers } from '../map/layer-style';
import { useStore } from '../store';
import { readColormaps } from './actions/layers';
import { useRoom } from './room-context';
import { shownState } from './time-view';
import { PHONE } from './bottom-sheet';
import { t } from '../i18n/index.js';

/**
 * What the map shows, top to bottom: each visible layer with its symbols, each visible raster
 * with its ramp and stretch; in a past view, the layers and styles of that moment.
 */
export function Legend() {
  const { model, hidden, timeView } = useRoom();
  const now = useStore(model);
  const view = useStore(timeView);
  const hiddenHere = useStore(hidden);
  const [ramps, setRamps] = useState<Colormap[]>([]);
  // On a phone it starts closed: a small map is not covered by it until asked for.
  const [startsOpen] = useState(() => !matchMedia(PHONE).matches);
  useEffect(() => void readColormaps().then(setRamps, () => undefined), []);
  if (!now) return null;
  const state = shownState(now, view, Date.now());
  const layers = orderedLayers(state.layers).filter((l) => l.style.visible && !hiddenHere.has(l.id));
  const rasters = state.rasters.filter((r) => !hiddenHere.has(r.id));
  if (layers.length === 0 && rasters.length === 0) return null;
  return (
    <details class="legend" open={startsOpen} data-testid="legend">
      <summary>{t('room:legend.title')}</summary>
      <ul>
        {layers.map((layer) => {
          const entries = legendEntries(layer.style);
          const rule = layer.style.classify;
          return (
            <li key={layer.id} data-testid="legend-layer">
              {entries.length === 1 && <Swatch color={entries[0]!.color} />}
              <strong>{layer.name}</strong>
              {rule && <span class="muted"> {t('room:legend.by', { field: rule.field })}</span>}
              {entries.length > 1 && (
                <ul>
                  {entries.map((entry) => (
                    <li key={entry.label} data-testid="legend-entry">
                      <Swatch color={entry.color} /> {entry.label}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
        {rasters.map((raster) => (
          <RasterLegend key={raster.id} raster={raster} ramps={ramps} />
        ))}
      </ul>
    </details>
  );
}

const Swatch = ({ color }: { color: string }) => <span class="swatch" style={{ background: color }} />;

function RasterLegend({ raster, ramps }: { raster: RasterLayer; ramps: Colormap[] }) {
  const { display } = raster;
  if (display.renderMode === 'rgb')
    return (
      <li data-testid="legend-raster">
        <strong>{raster.name}</strong>{' '}
        <span class="muted">{t('room:legend.rgb', { bands: (display.rgbBands ?? [1, 2, 3]).join(', ') })}</span>
      </li>
    );
  const stats = raster.stats[(display.band ?? 1) - 1];
  const stops = ramps.find((r) => r.name === display.colormap)?.stops ?? [];
  const shown = display.reverse ? [...stops].reverse() : stops;
  const low = display.vmin ?? stats?.min;
  const high = display.vmax ?? stats?.max;
  const auto = display.vmin == null || display.vmax == null;
  const fmt = (n: number | null | undefined) => (n == null ? '?' : String(Number(n.toPrecision(4))));
  return (
    <li data-testid="legend-raster">
      <strong>{raster.name}</strong>{' '}
      <span class="muted">
        {auto
          ? t('room:legend.bandAuto', { band: display.band ?? 1, colormap: display.colormap })
          : t('room:legend.band', { band: display.band ?? 1, colormap: display.colormap })}
      </span>
      {shown.length > 0 && (
        <span class="gradient" style={{ backgroundImage: `linear-gradient(to right, ${shown.join(', ')})` }} />
      )}
      <span class="stretch">
        <span>{fmt(low)}</span>
        <span>{fmt(high)}</span>
      </span>
    </li>
  );
}
