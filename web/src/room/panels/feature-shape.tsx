import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../../i18n/index.js';
import { updateFeature } from '../actions/features';
import { ConflictNote, type FeatureEditorProps, saveUnlessChanged } from './feature-form';
import { editShape, type ShapeEdit } from '../drawing-tools';
import { typing } from '../keyboard';
import { useRoom } from '../room-context';

/**
 * Reshaping a layer's feature on the map, with the drawings' editor (drawing-tools.ts): move a
 * point or the whole shape, drag vertices, drag a midpoint to add one, right-click a vertex or
 * press it and Delete to remove it; every part of a multi-part. Save sends the geometry based on
 * the version read; when someone changed the feature since, it says who and offers to read it
 * again (the shape stays in the editor until then). Escape or Cancel leaves it unchanged.
 */
export function FeatureShape({ layer, feature, onSaved, onReload, onCancel }: FeatureEditorProps) {
  const { map, mode, attempt, notify } = useRoom();
  const edit = useRef<ShapeEdit | null>(null);
  const [conflict, setConflict] = useState<string | null>(null);
  const [note, setNote] = useState('');
  /** The shape is in the editor (the effect below ran): for the tests, as `data-ready`. */
  const [ready, setReady] = useState(false);
  useEffect(() => {
    try {
      edit.current = editShape(map.get()!, feature.geometry);
    } catch (error) {
      notify((error as Error).message, 'error');
      onCancel();
      return;
    }
    setReady(true);
    // The map's clicks reshape now: they select nothing else (room/map-interactions.ts).
    mode.set('reshape');
    // Escape (room/keyboard.tsx) or another panel's mode ends the editing, unsaved.
    const stopMode = mode.subscribe((now) => now !== 'reshape' && onCancel());
    const onKey = (event: KeyboardEvent) => {
      if ((event.key !== 'Delete' && event.key !== 'Backspace') || typing(event.target)) return;
      event.preventDefault();
      setNote(edit.current?.deleteVertex() ? t('layers:shape.vertexDeleted') : t('layers:shape.pressVertex'));
    };
    document.addEventListener('keydown', onKey);
    return () => {
      stopMode();
      document.removeEventListener('keydown', onKey);
      edit.current?.end();
      edit.current = null;
      if (mode.get() === 'reshape') mode.set('browse');
    };
  }, []);
  const save = async () => {
    const geometry = edit.current?.current();
    if (!geometry) return;
    const saved = await saveUnlessChanged(attempt, () => updateFeature(layer.id, feature, { geometry }), setConflict);
    if (!saved) return;
    notify(t('layers:shape.saved'));
    onSaved(saved);
  };
  const deleteVertex = () =>
    setNote(edit.current?.deleteVertex() ? t('layers:shape.vertexDeleted') : t('layers:shape.pressVertex'));
  const lines = !feature.geometry.type.endsWith('Point');
  return (
    <div class="feature-shape" role="group" aria-label={t('layers:shape.label')} data-ready={ready}>
      <p class="note">{lines ? t('layers:shape.hintVertices') : t('layers:shape.hintPoint')}</p>
      <p class="muted" role="status">
        {note}
      </p>
      {conflict !== null && <ConflictNote message={t('layers:shape.conflict', { by: conflict })} onReload={onReload} />}
      <p class="actions row">
        <button type="button" onClick={save} disabled={conflict !== null}>
          {t('layers:shape.save')}
        </button>
        {lines && (
          <button type="button" onClick={deleteVertex}>
            {t('layers:shape.deleteVertex')}
          </button>
        )}
        <button type="button" onClick={onCancel}>
          {t('layers:feature.cancel')}
        </button>
      </p>
    </div>
  );
}
