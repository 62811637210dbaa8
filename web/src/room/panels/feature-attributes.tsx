import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { setHighlight } from '../../map/room-layers';
import type { Layer } from '../../api/types';
import { useStore } from '../../store';
import { deleteFeature, readFeature, type StoredFeature } from '../actions/features';
import { offerUndoDelete } from '../undo-delete';
import { FeatureShape } from './feature-shape';
import { showsPast } from '../time-view';
import { FeatureForm } from './feature-form';
import { useRoom } from '../room-context';
import { t } from '../../i18n/index.js';

/** Values longer than this are folded (a summary line, the rest on demand). */
const FOLD_ABOVE = 80;

/**
 * A value's type as the table shows it: number, text, yes/no, list, object or empty. A whole
 * number is not called an integer: the value 2 of a real field is one too.
 */
function typeOf(value: unknown): string {
  if (value === null || value === undefined) return t('layers:feature.typeEmpty');
  if (typeof value === 'number') return t('layers:feature.typeNumber');
  if (typeof value === 'boolean') return t('layers:feature.typeYesNo');
  if (Array.isArray(value)) return t('layers:feature.typeList');
  return typeof value === 'object' ? t('layers:feature.typeObject') : t('layers:feature.typeText');
}

function textOf(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? t('layers:feature.yes') : t('layers:feature.no');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function Value({ value }: { value: unknown }) {
  const text = textOf(value);
  if (text.length <= FOLD_ABOVE) return <span>{text}</span>;
  return (
    <details>
      <summary>{text.slice(0, FOLD_ABOVE)}…</summary>
      <span>{text}</span>
    </details>
  );
}

/** The clicked feature of a layer: every recorded property with its type, long values folded; highlighted on the map. */
export function FeatureAttributes({ layer, featureId }: { layer: Layer; featureId: number }) {
  const room = useRoom();
  const { model, map, attempt, canEdit, timeView, selection, presence } = room;
  const layerId = layer.id;
  const [feature, setFeature] = useState<StoredFeature | null>(null);
  /** What an editor edits: the attributes' form, or the shape on the map. */
  const [editing, setEditing] = useState<'attributes' | 'shape' | null>(null);
  const [reads, setReads] = useState(0);
  const past = showsPast(useStore(timeView));
  // The others see whom of them edits this feature, and this page tells them while it does.
  const editors = [...useStore(presence.editing).values()]
    .filter((e) => e.layerId === layerId && e.featureId === featureId)
    .map((e) => e.name);
  useEffect(() => {
    if (!editing) return;
    presence.editFeature({ layerId, featureId });
    return () => presence.editFeature(null);
  }, [editing]);
  // A layout effect: the request leaves as soon as the panel is in the page. A plain effect
  // waits for the next frame to be drawn first, on a busy map a good part of the click's time.
  useLayoutEffect(() => {
    let current = true;
    void attempt(() => readFeature(model, layerId, featureId)).then((found) => {
      if (!current || !found) return;
      setFeature(found);
    });
    return () => {
      current = false;
      const shown = map.get();
      if (shown) setHighlight(shown, null);
    };
  }, [layerId, featureId, reads]);
  // The highlight follows the feature as read, and as reshaped once saved.
  useEffect(() => {
    const shown = map.get();
    if (shown && feature) setHighlight(shown, feature.geometry);
  }, [feature]);
  const editedBy = editors.length > 0 && (
    <p class="note" role="status" data-testid="feature-editors">
      {t('layers:feature.editedBy', { names: editors.join(', ') })}
    </p>
  );
  if (!feature) return <p class="muted">{t('layers:feature.reading', { id: featureId })}</p>;
  const entries = Object.entries(feature.properties);
  const remove = async () => {
    const deleted = await attempt(async () => {
      await deleteFeature(layerId, feature.id);
      return true;
    });
    if (!deleted) return;
    selection.set({ kind: 'layer', id: layerId });
    const what = t('layers:feature.undoName', { id: feature.id });
    offerUndoDelete(room, what, 'feature', `${layerId}:${feature.id}`);
  };
  const saved = (changed: StoredFeature) => {
    setFeature(changed);
    setEditing(null);
  };
  // Read again after a conflict: the form or the shape comes back with what is stored now.
  const reload = () => {
    setFeature(null);
    setReads((n) => n + 1);
  };
  const props = { layer, feature, onSaved: saved, onReload: reload, onCancel: () => setEditing(null) };
  const editor =
    editing === 'shape' ? (
      <FeatureShape key={feature.version} {...props} />
    ) : editing === 'attributes' ? (
      <FeatureForm key={feature.version} {...props} />
    ) : null;
  if (editor)
    return (
      <section aria-label={t('layers:feature.label')}>
        <h3>{t('layers:feature.title', { id: feature.id })}</h3>
        {editedBy}
        {editor}
      </section>
    );
  return (
    <section aria-label={t('layers:feature.label')}>
      <h3>{t('layers:feature.title', { id: feature.id })}</h3>
      {editedBy}
      {canEdit && !past && (
        <div class="row" role="group" aria-label={t('layers:feature.actions')}>
          {layer.fields.length > 0 && (
            <button type="button" onClick={() => setEditing('attributes')}>
              {t('layers:feature.edit')}
            </button>
          )}
          <button type="button" onClick={() => setEditing('shape')}>
            {t('layers:shape.edit')}
          </button>
          <button type="button" class="danger" onClick={() => void remove()}>
            {t('layers:feature.delete')}
          </button>
        </div>
      )}
      {entries.length === 0 ? (
        <p class="muted">{t('layers:feature.empty')}</p>
      ) : (
        <table class="attributes">
          <tbody>
            {entries.map(([name, value]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td>
                  <Value value={value} />
                </td>
                <td class="muted">{typeOf(value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
