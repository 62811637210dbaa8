import { useEffect, useState } from 'preact/hooks';
import type { Colormap, RasterDisplay, RasterLayer } from '../../api/types';
import { readColormaps, updateRasterDisplay } from '../actions/layers';
import { useRoom } from '../room-context';

/** A raster's display: one band through a colormap with a stretch, or three bands as RGB. */
export function RasterDisplayForm({ raster }: { raster: RasterLayer }) {
  const { model, attempt } = useRoom();
  const [ramps, setRamps] = useState<Colormap[]>([]);
  const [display, setDisplay] = useState<RasterDisplay>(raster.display);
  useEffect(
    () =>
      void readColormaps()
        .then(setRamps)
        .catch(() => undefined),
    [],
  );
  useEffect(() => setDisplay(raster.display), [raster.updatedAt]);
  const band = display.band ?? 1;
  const stats = raster.stats[band - 1];
  const bands = Array.from({ length: raster.bands }, (_, i) => i + 1);
  const set = (change: Partial<RasterDisplay>) => setDisplay({ ...display, ...change });
  const save = async (event: Event) => {
    event.preventDefault();
    const body =
      display.renderMode === 'rgb'
        ? { renderMode: 'rgb' as const, rgbBands: display.rgbBands ?? [1, 2, 3], opacity: display.opacity ?? 1 }
        : {
            renderMode: 'single' as const,
            band,
            colormap: display.colormap,
            vmin: display.vmin ?? null,
            vmax: display.vmax ?? null,
            reverse: display.reverse ?? false,
            opacity: display.opacity ?? 1,
          };
    await attempt(() => updateRasterDisplay(model, raster.id, body), `${raster.name}: display saved`);
  };
  return (
    <form class="form" onSubmit={save} aria-label={`Display of ${raster.name}`}>
      {raster.bands >= 3 && (
        <fieldset>
          <legend>Render</legend>
          <label class="check">
            <input
              type="radio"
              name={`mode-${raster.id}`}
              checked={display.renderMode !== 'rgb'}
              onChange={() => set({ renderMode: 'single' })}
            />{' '}
            One band, colormap
          </label>
          <label class="check">
            <input
              type="radio"
              name={`mode-${raster.id}`}
              checked={display.renderMode === 'rgb'}
              onChange={() => set({ renderMode: 'rgb', rgbBands: display.rgbBands ?? [1, 2, 3] })}
            />{' '}
            RGB bands
          </label>
        </fieldset>
      )}
      {display.renderMode === 'rgb' ? (
        <div class="row">
          {['Red', 'Green', 'Blue'].map((colour, i) => (
            <label key={colour}>
              {colour}
              <select
                value={(display.rgbBands ?? [1, 2, 3])[i]}
                onChange={(e) => {
                  const rgb = [...(display.rgbBands ?? [1, 2, 3])];
                  rgb[i] = Number(e.currentTarget.value);
                  set({ rgbBands: rgb });
                }}
              >
                {bands.map((b) => (
                  <option key={b} value={b}>
                    Band {b}
                  </option>
                ))}
              </select>
            </label>
          ))}
        </div>
      ) : (
        <>
          <label>
            Band{' '}
            <select value={band} onChange={(e) => set({ band: Number(e.currentTarget.value) })}>
              {bands.map((b) => (
                <option key={b} value={b}>
                  Band {b}
                </option>
              ))}
            </select>
          </label>
          <fieldset class="ramps">
            <legend>Colormap</legend>
            {ramps.map((ramp) => (
              <label key={ramp.name} class={`ramp ${display.colormap === ramp.name ? 'chosen' : ''}`} title={ramp.name}>
                <input
                  type="radio"
                  name={`ramp-${raster.id}`}
                  value={ramp.name}
                  checked={display.colormap === ramp.name}
                  onChange={() => set({ colormap: ramp.name })}
                />
                <span
                  class="gradient"
                  style={{ backgroundImage: `linear-gradient(to right, ${ramp.stops.join(', ')})` }}
                />
                <span>{ramp.name}</span>
              </label>
            ))}
          </fieldset>
          <label class="check">
            <input
              type="checkbox"
              checked={display.reverse ?? false}
              onChange={(e) => set({ reverse: e.currentTarget.checked })}
            />{' '}
            Reverse
          </label>
          <div class="row">
            <label>
              Min{' '}
              <input
                type="number"
                step="any"
                value={display.vmin ?? ''}
                placeholder={String(stats?.min ?? '')}
                onInput={(e) => set({ vmin: e.currentTarget.value === '' ? null : Number(e.currentTarget.value) })}
              />
            </label>
            <label>
              Max{' '}
              <input
                type="number"
                step="any"
                value={display.vmax ?? ''}
                placeholder={String(stats?.max ?? '')}
                onInput={(e) => set({ vmax: e.currentTarget.value === '' ? null : Number(e.currentTarget.value) })}
              />
            </label>
          </div>
        </>
      )}
      <label>
        Opacity{' '}
        <input
          type="range"
          min={0}
          max={1}
          step={0.05}
          value={display.opacity ?? 1}
          onInput={(e) => set({ opacity: Number(e.currentTarget.value) })}
        />
      </label>
      <button type="submit">Apply display</button>
    </form>
  );
}
