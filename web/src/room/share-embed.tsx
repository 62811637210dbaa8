import { useState } from 'preact/hooks';
import { DEFAULT_CONTROLS, EMBED_CONTROLS, type EmbedControl, embedAddress, iframeCode } from '../embed-options';
import { t } from '../i18n/index.js';
import { baseLayers } from '../map/base-layers';
import { viewOf } from '../map/create-map';
import { orderedLayers } from '../map/layer-style';
import { useStore } from '../store';
import { CheckField, SelectField } from '../ui/fields';
import { useRoom } from './room-context';
import { CopyField } from './share-dialog';

const CONTROL_WORDS: Record<EmbedControl, () => string> = {
  zoom: () => t('share:embed.controls.zoom'),
  layers: () => t('share:embed.controls.layers'),
  legend: () => t('share:embed.controls.legend'),
  search: () => t('share:embed.controls.search'),
  time: () => t('share:embed.controls.time'),
  fullscreen: () => t('share:embed.controls.fullscreen'),
};

/** The embed's options, its `<iframe>` and script code, and a live preview of exactly that address. */
export function ShareEmbed({ embedKey }: { embedKey: string | null }) {
  const { roomId, model, map, hidden } = useRoom();
  const state = useStore(model);
  const [deck, setDeck] = useState(false);
  const [hereNow, setHereNow] = useState(false);
  const layers = state ? [...orderedLayers(state.layers), ...state.rasters] : [];
  const [shown, setShown] = useState(() => new Set(layers.filter((l) => !hidden.get().has(l.id)).map((l) => l.id)));
  const [basemap, setBasemap] = useState('');
  const [controls, setControls] = useState(new Set<EmbedControl>(DEFAULT_CONTROLS));
  const [interactive, setInteractive] = useState(true);
  if (!state) return null;
  const isPublic = state.room.isPublic;
  const shownMap = map.get();
  const address = embedAddress(
    location.origin,
    roomId,
    {
      view: hereNow && shownMap ? viewOf(shownMap) : null,
      layers: shown.size === layers.length ? null : [...shown],
      basemap: basemap || null,
      controls,
      interactive,
      key: isPublic ? null : embedKey,
    },
    deck,
  );
  const name = state.room.name || roomId;
  const script = scriptCode(address, name);
  const toggle = <T,>(set: Set<T>, item: T, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(item);
    else next.delete(item);
    return next;
  };
  return (
    <section aria-labelledby="share-embed" class="share-embed">
      <h3 id="share-embed">{t('share:embed.title')}</h3>
      {!isPublic && !embedKey && <p class="note">{t('share:embed.needsKey')}</p>}
      <div class="share-options">
        {state.room.presentationIsPublic && (
          <CheckField label={t('share:embed.deck')} checked={deck} onChange={setDeck} />
        )}
        <CheckField label={t('share:embed.hereNow')} checked={hereNow} onChange={setHereNow} />
        <CheckField label={t('share:embed.interactive')} checked={interactive} onChange={setInteractive} />
        <SelectField
          label={t('share:embed.basemap')}
          value={basemap}
          options={[['', t('share:embed.roomBasemap')], ...baseLayers().map((b) => [b.id, b.name] as const)]}
          onChange={setBasemap}
        />
        {layers.length > 0 && (
          <fieldset>
            <legend>{t('share:embed.layers')}</legend>
            {layers.map((layer) => (
              <CheckField
                key={layer.id}
                label={layer.name}
                checked={shown.has(layer.id)}
                onChange={(on) => setShown(toggle(shown, layer.id, on))}
              />
            ))}
          </fieldset>
        )}
        <fieldset>
          <legend>{t('share:embed.controls.title')}</legend>
          {EMBED_CONTROLS.map((control) => (
            <CheckField
              key={control}
              label={CONTROL_WORDS[control]()}
              checked={controls.has(control)}
              onChange={(on) => setControls(toggle(controls, control, on))}
            />
          ))}
        </fieldset>
      </div>
      <CopyField label={t('share:embed.iframe')} value={iframeCode(address, name)} rows={3} />
      <CopyField label={t('share:embed.script')} value={script} rows={6} />
      <p class="muted">{t('share:embed.preview')}</p>
      <iframe class="share-preview" src={address} title={t('share:embed.previewTitle')} data-testid="share-preview" />
    </section>
  );
}

/** The script form of the embed: the embed script and one call of `Maproom.embed` with the same options. */
function scriptCode(address: string, title: string): string {
  const url = new URL(address);
  const query = url.searchParams;
  const [, , roomId, deck] = url.pathname.split('/');
  const view = query.get('view')?.split(',').map(Number);
  const options = {
    room: roomId,
    ...(deck && { deck: true }),
    ...(query.get('key') && { key: query.get('key') }),
    ...(view && { view: { lat: view[0], lng: view[1], zoom: view[2] } }),
    ...(query.get('layers') && { layers: query.get('layers')!.split(',') }),
    ...(query.get('basemap') && { basemap: query.get('basemap') }),
    ...(query.has('controls') && { controls: query.get('controls')!.split(',').filter(Boolean) }),
    ...(query.get('interactive') === '0' && { interactive: false }),
    title,
  };
  return [
    '<div id="maproom-map" style="height: 480px"></div>',
    `<script src="${url.origin}/embed.js"></script>`,
    '<script>',
    `  Maproom.embed(document.getElementById('maproom-map'), ${JSON.stringify(options).replace(/</g, '\\u003c')});`,
    '</script>',
  ].join('\n');
}
