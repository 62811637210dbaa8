import { useEffect } from 'preact/hooks';
import { t } from '../i18n/index.js';
import { useRoom } from '../room/room-context';
import { useStore } from '../store';

/** The selected marker or drawing of an embed, as a small card over the map: its title and text. */
export function EmbedSelection() {
  const { model, selection } = useRoom();
  const selected = useStore(selection);
  const state = useStore(model);
  const marker = selected?.kind === 'marker' ? state?.markers.get(selected.id) : undefined;
  const drawing = selected?.kind === 'drawing' ? state?.drawings.get(selected.id) : undefined;
  // The feed has no text: the marker is read whole when opened.
  useEffect(() => {
    if (marker && marker.description === undefined) void model.loadMarker(marker.id).catch(() => undefined);
  }, [marker?.id]);
  if (!marker && !drawing) return null;
  return (
    <section class="embed-card" aria-live="polite" data-testid="embed-card">
      <button type="button" class="embed-card-close" aria-label={t('common:close')} onClick={() => selection.set(null)}>
        ×
      </button>
      {marker && (
        <>
          <h2>{marker.title || t('share:embed.untitled')}</h2>
          {marker.description && <p>{marker.description}</p>}
        </>
      )}
      {drawing && <h2>{drawing.label || t('share:embed.untitled')}</h2>}
    </section>
  );
}
