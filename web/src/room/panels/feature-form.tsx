import { useState } from 'preact/hooks';
import type { Layer } from '../../api/types';
import { t } from '../../i18n/index.js';
import { conflictBy, type StoredFeature, updateFeatureProperties } from '../actions/features';
import { useRoom } from '../room-context';
import type { Attempt } from '../../ui/notices';

type Field = Layer['fields'][number];

/** The text an input shows for a value of a field (empty: no value). */
function inputText(field: Field, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (field.type === 'json') return JSON.stringify(value);
  return String(value);
}

/** The value an input's text stands for, of the field's type (null: none; undefined: not a number). */
function typedValue(field: Field, text: string): unknown {
  if (text.trim() === '') return null;
  if (field.type === 'integer' || field.type === 'real') {
    const number = Number(text);
    return Number.isFinite(number) ? number : undefined;
  }
  return text;
}

/**
 * One field's input, as its type asks: a number, a date picker, a yes/no box, a list of its
 * choices, or text (the form's and the attribute table's cells').
 */
export function FieldInput({
  field,
  index,
  value,
  onInput,
  idPrefix = 'feature-field',
}: {
  field: Field;
  index: number;
  value: unknown;
  onInput: (value: unknown) => void;
  idPrefix?: string;
}) {
  // By its place: a field's name may hold spaces, which an id may not.
  const id = `${idPrefix}-${index}`;
  const label = <label for={id}>{field.name}</label>;
  if (field.type === 'boolean')
    return (
      <p class="check">
        <input id={id} type="checkbox" checked={value === true} onInput={(e) => onInput(e.currentTarget.checked)} />
        {label}
      </p>
    );
  if (field.type === 'choice')
    return (
      <p>
        {label}
        <select
          id={id}
          required={field.required}
          value={inputText(field, value)}
          onInput={(e) => onInput(typedValue(field, e.currentTarget.value))}
        >
          <option value="">{t('layers:feature.noValue')}</option>
          {field.choices?.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      </p>
    );
  const type: 'number' | 'date' | 'text' =
    field.type === 'integer' || field.type === 'real' ? 'number' : field.type === 'date' ? 'date' : 'text';
  return (
    <p>
      {label}
      <input
        id={id}
        // Preact types each input type's attributes apart; these three take the same ones here.
        type={type as 'text'}
        step={field.type === 'integer' ? '1' : field.type === 'real' ? 'any' : undefined}
        required={field.required}
        readOnly={field.type === 'json'}
        value={inputText(field, value)}
        onInput={(e) => onInput(typedValue(field, e.currentTarget.value))}
      />
    </p>
  );
}

/**
 * Saves a feature through `attempt` (a failure is an error notice), but for a change someone
 * made since it was read: `onConflict` is told who, and nothing is shown.
 */
export function saveUnlessChanged<T>(attempt: Attempt, save: () => Promise<T>, onConflict: (by: string) => void) {
  return attempt(async () => {
    try {
      return await save();
    } catch (error) {
      const by = conflictBy(error);
      if (by === null) throw error;
      onConflict(by);
      return undefined;
    }
  });
}

/** Who changed the feature since it was read (`message`), and Read it again. */
export function ConflictNote({ message, onReload }: { message: string; onReload: () => void }) {
  return (
    <p role="alert" class="error">
      {message}{' '}
      <button type="button" onClick={onReload}>
        {t('layers:feature.reload')}
      </button>
    </p>
  );
}

/** What the feature's editors (its attributes' form, its shape) are given. */
export interface FeatureEditorProps {
  layer: Layer;
  feature: StoredFeature;
  onSaved: (feature: StoredFeature) => void;
  /** Reads the feature again (after a conflict). */
  onReload: () => void;
  onCancel: () => void;
}

/**
 * The attributes of a feature as a form that follows its layer's fields. Saving sends the
 * values changed, based on the version read; when someone changed the feature since, the
 * form says who and offers to read it again (nothing is overwritten, and what was typed stays
 * until then).
 */
export function FeatureForm({ layer, feature, onSaved, onReload, onCancel }: FeatureEditorProps) {
  const { attempt, notify } = useRoom();
  const [values, setValues] = useState<Record<string, unknown>>(feature.properties);
  const [conflict, setConflict] = useState<string | null>(null);
  const save = async (event: Event) => {
    event.preventDefault();
    const changed = Object.fromEntries(
      layer.fields
        .filter((f) => f.type !== 'json' && (values[f.name] ?? null) !== (feature.properties[f.name] ?? null))
        .map((f) => [f.name, values[f.name] ?? null]),
    );
    const saved = await saveUnlessChanged(
      attempt,
      () => updateFeatureProperties(layer.id, feature, changed),
      setConflict,
    );
    if (!saved) return;
    notify(t('layers:feature.saved'));
    onSaved(saved);
  };
  return (
    <form class="feature-form" aria-label={t('layers:feature.editLabel')} onSubmit={save}>
      {layer.fields.map((field, index) => (
        <FieldInput
          key={field.name}
          index={index}
          field={field}
          value={values[field.name]}
          onInput={(value) => setValues((held) => ({ ...held, [field.name]: value }))}
        />
      ))}
      {conflict !== null && (
        <ConflictNote message={t('layers:feature.conflict', { by: conflict })} onReload={onReload} />
      )}
      <p class="actions">
        <button type="submit" disabled={conflict !== null}>
          {t('layers:feature.save')}
        </button>
        <button type="button" onClick={onCancel}>
          {t('layers:feature.cancel')}
        </button>
      </p>
    </form>
  );
}
