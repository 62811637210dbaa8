import { useEffect, useRef, useState } from 'preact/hooks';
import type { Layer } from '../../api/types';
import { t } from '../../i18n/index.js';
import { readFeature, type StoredFeature, updateFeatureProperties } from '../actions/features';
import { useRoom } from '../room-context';
import { ConflictNote, FieldInput, saveUnlessChanged } from './feature-form';

type Field = Layer['fields'][number];

/**
 * A cell of the attribute table an editor can change: a press (or Enter) reads the feature
 * (its value and version) and shows its field's input (feature-form.tsx); Enter or ✓ saves it
 * based on that version, Escape or ✕ leaves it. When someone changed the feature since, the
 * cell says who and offers to read it again.
 */
export function AttributeCell({
  layer,
  field,
  index,
  featureId,
  text,
  onSaved,
}: {
  layer: Layer;
  field: Field;
  index: number;
  featureId: number;
  text: string;
  onSaved: (properties: Record<string, unknown>) => void;
}) {
  const { model, attempt, notify, presence } = useRoom();
  const [feature, setFeature] = useState<StoredFeature | null>(null);
  const [value, setValue] = useState<unknown>(null);
  const [conflict, setConflict] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const begin = async () => {
    const read = await attempt(() => readFeature(model, layer.id, featureId));
    if (!read) return;
    setFeature(read);
    setValue(read.properties[field.name] ?? null);
    setConflict(null);
  };
  // The others see who edits the feature (room/presence.ts).
  const editing = feature !== null;
  useEffect(() => {
    if (!editing) return;
    presence.editFeature({ layerId: layer.id, featureId });
    return () => presence.editFeature(null);
  }, [editing]);
  useEffect(() => {
    if (feature) form.current?.querySelector<HTMLElement>('input, select')?.focus();
  }, [feature]);
  const refocus = useRef(false);
  const end = () => {
    setFeature(null);
    refocus.current = true;
  };
  // Once the input is gone, the focus goes back to the cell, for the next one.
  useEffect(() => {
    if (feature || !refocus.current) return;
    refocus.current = false;
    opener.current?.focus();
  }, [feature]);
  const save = async (event: Event) => {
    event.preventDefault();
    if (!feature) return;
    if ((feature.properties[field.name] ?? null) === value) return end();
    const change = { [field.name]: value };
    const saved = await saveUnlessChanged(
      attempt,
      () => updateFeatureProperties(layer.id, feature, change),
      setConflict,
    );
    if (!saved) return;
    notify(t('layers:feature.saved'));
    onSaved(saved.properties);
    end();
  };
  // The row's click shows the feature; a click in the cell edits it, and does not.
  const own = (event: Event) => event.stopPropagation();
  if (!feature)
    return (
      <td>
        <button
          ref={opener}
          type="button"
          class="cell"
          aria-label={t('layers:table.editCell', { field: field.name, id: featureId, value: text })}
          onClick={(e) => {
            own(e);
            void begin();
          }}
          onKeyDown={own}
        >
          {text}
        </button>
      </td>
    );
  return (
    <td onClick={own} onKeyDown={own}>
      <form
        ref={form}
        class="cell-form"
        aria-label={t('layers:table.cellForm', { field: field.name, id: featureId })}
        onSubmit={save}
        onKeyDown={(e) => e.key === 'Escape' && end()}
      >
        <FieldInput field={field} index={index} idPrefix={`cell-${featureId}`} value={value} onInput={setValue} />
        <button type="submit" aria-label={t('layers:feature.save')} disabled={conflict !== null}>
          ✓
        </button>
        <button type="button" aria-label={t('layers:feature.cancel')} onClick={end}>
          ✕
        </button>
        {conflict !== null && (
          <ConflictNote message={t('layers:table.conflict', { by: conflict })} onReload={() => void begin()} />
        )}
      </form>
    </td>
  );
}
