import { t } from '../i18n/index.js';
import { orderedLayers } from '../map/layer-style';
import { useRoom } from '../room/room-context';
import { useStore } from '../store';

/** An embed's layer switcher: each of the room's layers and rasters, shown or hidden on this page only. */
export function EmbedLayers() {
  const { model, hidden } = useRoom();
  const state = useStore(model);
  const hiddenHere = useStore(hidden);
  if (!state) return null;
  const layers = [...orderedLayers(state.layers).filter((layer) => layer.style.visible), ...state.rasters];
  if (layers.length === 0) return null;
  const toggle = (id: string, shown: boolean) => {
    const next = new Set(hidden.get());
    if (shown) next.delete(id);
    else next.add(id);
    hidden.set(next);
  };
  return (
    <details class="legend embed-layers" data-testid="embed-layers">
      <summary>{t('share:embed.layers')}</summary>
      <ul>
        {layers.map((layer) => (
          <li key={layer.id}>
            <label>
              <input
                type="checkbox"
                checked={!hiddenHere.has(layer.id)}
                onChange={(event) => toggle(layer.id, event.currentTarget.checked)}
              />{' '}
              {layer.name}
            </label>
          </li>
        ))}
      </ul>
    </details>
  );
}
