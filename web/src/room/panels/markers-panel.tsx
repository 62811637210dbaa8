import { useEffect, useState } from 'preact/hooks';
import { useStore } from '../../store';
import { useRoom } from '../room-context';
import { hasDetails } from '../room-state';
import { TextField } from '../../ui/fields';
import { PlacingNote } from '../keyboard';
import { accuracyText } from '../locate';
import { placeMarkerAt } from '../placing';
import { t } from '../../i18n/index.js';

const SHOWN = 100;

/** Add a marker by clicking the map or with the keyboard (placing.ts); find markers by title or tag (the keyboard's way to them). */
export function MarkersPanel() {
  const { model, mode, canEdit, selection, map, attempt } = useRoom();
  const { markers } = useStore(model)!;
  // The map draws the markers from the feed; their titles and tags come after.
  useEffect(() => void attempt(() => model.loadMarkerDetails()), [model]);
  const current = useStore(mode);
  const [query, setQuery] = useState('');
  const needle = query.trim().toLowerCase();
  const found = [];
  for (const m of markers.values()) {
    if (found.length >= SHOWN) break;
    if (!needle || m.title?.toLowerCase().includes(needle) || m.tags?.some((tag) => tag.toLowerCase().includes(needle)))
      found.push(m);
  }
  const select = (id: string) => {
    const marker = markers.get(id)!;
    selection.set({ kind: 'marker', id });
    map.get()?.easeTo({ center: [marker.longitude!, marker.latitude!], zoom: Math.max(map.get()!.getZoom(), 15) });
  };
  return (
    <div>
      <h2>{t('markers:panel.heading', { number: markers.size })}</h2>
      {canEdit && (
        <div class="row">
          <button
            type="button"
            aria-pressed={current === 'add-marker'}
            onClick={() => mode.set(current === 'add-marker' ? 'browse' : 'add-marker')}
          >
            {current === 'add-marker' ? t('markers:panel.cancelAdding') : t('markers:panel.add')}
          </button>
          <AddAtMyPosition />
        </div>
      )}
      {current === 'add-marker' && <PlacingNote />}
      <TextField
        label={t('markers:panel.find')}
        type="search"
        value={query}
        onInput={setQuery}
        placeholder={t('markers:panel.findPlaceholder')}
      />
      <ul class="list" data-testid="marker-list">
        {found.map((m) => (
          <li key={m.id}>
            <button type="button" class="link" onClick={() => select(m.id)}>
              <span class="swatch" style={{ background: m.color ?? '#3388ff' }} />
              {m.title ?? (hasDetails(m) ? t('markers:panel.untitled') : '…')}
            </button>
          </li>
        ))}
      </ul>
      {markers.size > found.length && !needle && (
        <p class="muted">{t('markers:panel.firstShown', { number: SHOWN })}</p>
      )}
    </div>
  );
}

/** Once "Locate me" has found the person: a marker where they stand, in one press (field work). */
function AddAtMyPosition() {
  const room = useRoom();
  const located = useStore(room.located);
  if (!located) return null;
  return (
    <button type="button" onClick={() => void placeMarkerAt(room, located)}>
      {t('markers:panel.addAtMyPosition', { accuracy: accuracyText(located.accuracy) })}
    </button>
  );
}
