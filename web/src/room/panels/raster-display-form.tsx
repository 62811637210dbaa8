import { useEffect, useState } from 'preact/hooks';
import type { Colormap, RasterDisplay, RasterLayer } from '../../api/types';
import { readColormaps, updateRasterDisplay } from '../actions/layers';
import { useRoom } from '../room-context';
import { CheckField, MinMaxFields, OpacityField, SelectField } from '../../ui/fields';
import { t } from '../../i18n/index.js';

/** The bands of an RGB display, each in words of the page's language (read at render time). */
const channels = () => [t('layers:raster.red'), t('layers:raster.green'), t('layers:raster.blue')];

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
  const bandChoices = Array.from(
    { length: raster.bands },
    (_, i) => [i + 1, t('layers:raster.band', { number: i + 1 })] as const,
  );
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
    await attempt(() => updateRasterDisplay(model, raster.id, body), t('layers:raster.saved', { name: raster.name }));
  };
  return (
    <form class="form" onSubmit={save} aria-label={t('layers:raster.label', { name: raster.name })}>
      {raster.bands >= 3 && (
        <fieldset>
          <legend>{t('layers:raster.render')}</legend>
          <label class="check">
            <input
              type="radio"
              name={`mode-${raster.id}`}
              checked={display.renderMode !== 'rgb'}
              onChange={() => set({ renderMode: 'single' })}
            />{' '}
            {t('layers:raster.oneBand')}
          </label>
          <label class="check">
            <input
              type="radio"
              name={`mode-${raster.id}`}
              checked={display.renderMode === 'rgb'}
              onChange={() => set({ renderMode: 'rgb', rgbBands: display.rgbBands ?? [1, 2, 3] })}
            />{' '}
            {t('layers:raster.rgb')}
          </label>
        </fieldset>
      )}
      {display.renderMode === 'rgb' ? (
        <div class="row">
          {channels().map((colour, i) => (
            <SelectField
              key={i}
              label={colour}
              value={(display.rgbBands ?? [1, 2, 3])[i]!}
              options={bandChoices}
              onChange={(chosen) => {
                const rgb = [...(display.rgbBands ?? [1, 2, 3])];
                rgb[i] = Number(chosen);
                set({ rgbBands: rgb });
              }}
            />
          ))}
        </div>
      ) : (
        <>
          <SelectField
            label={t('layers:raster.bandLabel')}
            value={band}
            options={bandChoices}
            onChange={(chosen) => set({ band: Number(chosen) })}
          />
          <fieldset class="ramps">
            <legend>{t('layers:raster.colormap')}</legend>
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
          <CheckField
            label={t('layers:raster.reverse')}
            checked={display.reverse ?? false}
            onChange={(reverse) => set({ reverse })}
          />
          <MinMaxFields
            step="any"
            min={display.vmin ?? null}
            max={display.vmax ?? null}
            placeholders={[String(stats?.min ?? ''), String(stats?.max ?? '')]}
            onInput={({ min, max }) => set({ vmin: min, vmax: max })}
          />
        </>
      )}
      <OpacityField value={display.opacity ?? 1} onInput={(opacity) => set({ opacity })} />
      <button type="submit">{t('layers:raster.apply')}</button>
    </form>
  );
}
