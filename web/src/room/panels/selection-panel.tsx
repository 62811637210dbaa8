import { useLayoutEffect, useRef } from 'preact/hooks';
import { useStore } from '../../store';
import { useRoom } from '../room-context';
import { MarkerDetails } from './marker-details';
import { DrawingDetails } from './drawing-details';
import { CommentsThread } from './comments-thread';
import { FeatureAttributes } from './feature-attributes';
import { AddFeature } from './feature-add';
import { showsPast } from '../time-view';
import { t } from '../../i18n/index.js';

/** The selected marker, drawing or layer, with its comment thread. */
export function SelectionPanel() {
  const { selection, model, canEdit, timeView } = useRoom();
  const selected = useStore(selection)!;
  const past = showsPast(useStore(timeView));
  const state = useStore(model)!;
  const panel = useRef<HTMLElement>(null);
  // What was clicked on the map shows here, at the top of the side panel: scrolled down the
  // Layers list, the panel scrolls back up to it (only the side panel, not the page).
  useLayoutEffect(() => {
    const shown = panel.current;
    const side = shown?.closest('.side');
    if (!shown || !side) return;
    // Below what stays at the panel's top on a phone (its handle and tabs: its scroll padding).
    const covered = Number.parseFloat(getComputedStyle(side).scrollPaddingTop) || 0;
    const above = shown.getBoundingClientRect().top - side.getBoundingClientRect().top - covered;
    if (above < 0) side.scrollTop += above;
  }, [selected.kind, selected.id, selected.featureId]);
  const exists =
    selected.kind === 'marker'
      ? state.markers.has(selected.id)
      : selected.kind === 'drawing'
        ? state.drawings.has(selected.id)
        : state.layers.some((l) => l.id === selected.id);
  if (!exists)
    return (
      <section class="card">
        <p>{deletedWords[selected.kind]()}</p>
        <button type="button" onClick={() => selection.set(null)}>
          {t('markers:selection.close')}
        </button>
      </section>
    );
  const layer = selected.kind === 'layer' ? state.layers.find((l) => l.id === selected.id)! : null;
  return (
    <section ref={panel} class="card selection" aria-label={selectedWords[selected.kind]()}>
      <button type="button" class="close" aria-label={t('markers:selection.close')} onClick={() => selection.set(null)}>
        ×
      </button>
      {selected.kind === 'marker' && <MarkerDetails key={selected.id} markerId={selected.id} />}
      {selected.kind === 'drawing' && <DrawingDetails key={selected.id} drawingId={selected.id} />}
      {layer && (
        <>
          <h2>{layer.name}</h2>
          <p class="muted">
            {t('markers:selection.layerSummary', {
              count: layer.featureCount,
              geometry: layer.geometryType ?? t('markers:selection.empty'),
            })}
          </p>
          {canEdit && !past && <AddFeature layer={layer} />}
          {selected.featureId !== undefined && (
            <FeatureAttributes key={selected.featureId} layer={layer} featureId={selected.featureId} />
          )}
        </>
      )}
      <CommentsThread key={`c-${selected.id}`} objectType={selected.kind} objectId={selected.id} />
    </section>
  );
}

/** What the panel says when the selected object is gone, by its kind. */
const deletedWords = {
  marker: () => t('markers:selection.deleted.marker'),
  drawing: () => t('markers:selection.deleted.drawing'),
  layer: () => t('markers:selection.deleted.layer'),
};

/** The panel's name, by the kind of object it shows. */
const selectedWords = {
  marker: () => t('markers:selection.selected.marker'),
  drawing: () => t('markers:selection.selected.drawing'),
  layer: () => t('markers:selection.selected.layer'),
};
