import type {
  ComponentChildren,
  JSX,
  PartialInputHTMLAttributes,
  PartialSelectHTMLAttributes,
  TargetedEvent,
} from 'preact';
import { useId, useLayoutEffect, useRef } from 'preact/hooks';
import { formatNumber, t } from '../i18n/index.js';
import { numberOf, numberOrNull } from './field-values';

/**
 * The forms' fields, each a label with its control: the label's words, a space, then the input
 * (its accessible name is the words, as the browser tests find it). A field gives its value
 * parsed (`onInput` as it is typed or dragged, `onChange` when it is committed); any other
 * attribute (name, the service's limits from `inputLimits`, autoComplete) goes on the control.
 */

/** What a field passes on to its input, besides its value and events. */
type Attributes = Pick<
  PartialInputHTMLAttributes<HTMLInputElement>,
  | 'name'
  | 'min'
  | 'max'
  | 'step'
  | 'minLength'
  | 'maxLength'
  | 'pattern'
  | 'placeholder'
  | 'required'
  | 'readOnly'
  | 'disabled'
  | 'autoComplete'
  | 'autoFocus'
  | 'aria-label'
  | 'aria-valuetext'
>;
type Handlers<T> = { onInput?: (value: T) => void; onChange?: (value: T) => void };
type InputProps<T> = Attributes & Handlers<T> & { label: ComponentChildren; value: T };

/** The input's events, each read by `parse` before the field's handler has it. */
function handlers<T>({ onInput, onChange }: Handlers<T>, parse: (text: string) => T) {
  return {
    onInput: onInput && ((e: TargetedEvent<HTMLInputElement>) => onInput(parse(e.currentTarget.value))),
    onChange: onChange && ((e: TargetedEvent<HTMLInputElement>) => onChange(parse(e.currentTarget.value))),
  };
}

const text = (value: string) => value;

/** A line of text; `type` for an address, a password, a search or a link. */
export function TextField({
  label,
  value,
  type,
  onInput,
  onChange,
  maxLength,
  ...attributes
}: InputProps<string> & { type?: 'email' | 'password' | 'search' | 'url' }) {
  const over = useTooLong<HTMLInputElement>(value, typeof maxLength === 'number' ? maxLength : undefined);
  // No type is a text input: the attribute stays off, as on the forms before.
  return (
    <>
      <label>
        {label}{' '}
        <input
          ref={over.ref}
          type={type as 'text'}
          value={value}
          {...over.described}
          {...handlers({ onInput, onChange }, text)}
          {...attributes}
        />
      </label>
      {over.shown}
    </>
  );
}

/**
 * A text's limit kept by the field, not by the browser: `maxLength` on the control would cut a
 * longer text pasted in without a word. The whole text stays; the field says it is too long and
 * holds its form back until it is not (the control's own validity message, the same words).
 */
function useTooLong<E extends HTMLInputElement | HTMLTextAreaElement>(value: string, max: number | undefined) {
  const ref = useRef<E>(null);
  const message =
    max !== undefined && value.length > max
      ? t('ui:fields.tooLong', { count: max, max: formatNumber(max), length: formatNumber(value.length) })
      : '';
  const id = useId();
  useLayoutEffect(() => ref.current?.setCustomValidity(message), [message]);
  return {
    ref,
    described: message ? { 'aria-invalid': true, 'aria-describedby': id } : {},
    shown: message && (
      <p id={id} class="error field-error">
        {message}
      </p>
    ),
  };
}

/** An e-mail address the form needs (the browser may fill in the person's own). */
export function EmailField({
  label,
  value,
  onInput,
}: {
  label: string;
  value: string;
  onInput: (value: string) => void;
}) {
  return <TextField label={label} type="email" value={value} onInput={onInput} autoComplete="email" required />;
}

/** Several lines of text. */
export function TextAreaField({
  label,
  value,
  onInput,
  maxLength,
  ...attributes
}: Omit<JSX.IntrinsicElements['textarea'], 'value' | 'onInput' | 'label'> & {
  label: ComponentChildren;
  value: string;
  onInput: (value: string) => void;
}) {
  const over = useTooLong<HTMLTextAreaElement>(value, typeof maxLength === 'number' ? maxLength : undefined);
  return (
    <>
      <label>
        {label}{' '}
        <textarea
          ref={over.ref}
          value={value}
          {...over.described}
          onInput={(e) => onInput(e.currentTarget.value)}
          {...attributes}
        />
      </label>
      {over.shown}
    </>
  );
}

/** A number (an emptied input reads 0). */
export function NumberField({ label, value, onInput, onChange, ...attributes }: InputProps<number>) {
  return (
    <label>
      {label} <input type="number" {...attributes} value={value} {...handlers({ onInput, onChange }, numberOf)} />
    </label>
  );
}

/** A number that may be left empty (`null`); `placeholder` says what empty stands for. */
export function OptionalNumberField({ label, value, onInput, onChange, ...attributes }: InputProps<number | null>) {
  return (
    <label>
      {label}{' '}
      <input type="number" {...attributes} value={value ?? ''} {...handlers({ onInput, onChange }, numberOrNull)} />
    </label>
  );
}

/**
 * A lower and an upper bound side by side (Min, Max), each a number that may be left empty;
 * `placeholders` say what an empty one stands for.
 */
export function MinMaxFields({
  min,
  max,
  placeholders,
  step,
  onInput,
}: {
  min: number | null;
  max: number | null;
  placeholders: [string, string];
  step?: number | 'any';
  onInput: (bounds: { min: number | null; max: number | null }) => void;
}) {
  return (
    <div class="row">
      <OptionalNumberField
        label={t('ui:fields.min')}
        step={step}
        value={min}
        placeholder={placeholders[0]}
        onInput={(value) => onInput({ min: value, max })}
      />
      <OptionalNumberField
        label={t('ui:fields.max')}
        step={step}
        value={max}
        placeholder={placeholders[1]}
        onInput={(value) => onInput({ min, max: value })}
      />
    </div>
  );
}

/** A slider without a label of its own (give it `aria-label`): its position as a number. */
export function RangeInput({ value, onInput, onChange, ...attributes }: Omit<InputProps<number>, 'label'>) {
  return <input type="range" {...attributes} value={value} {...handlers({ onInput, onChange }, numberOf)} />;
}

/** An opacity from 0 (transparent) to 1, in steps of 0.05. */
export function OpacityField({
  label = t('ui:fields.opacity'),
  value,
  ...events
}: Handlers<number> & { label?: string; value: number }) {
  return (
    <label>
      {label} <input type="range" min={0} max={1} step={0.05} value={value} {...handlers(events, numberOf)} />
    </label>
  );
}

/** A colour as `#rrggbb` (ui/colour.ts reads a stored one into that). */
export function ColourField({
  label = t('ui:fields.colour'),
  value,
  name,
  ...events
}: Handlers<string> & { label?: string; value: string; name?: string }) {
  return (
    <label>
      {label} <input type="color" name={name} value={value} {...handlers(events, text)} />
    </label>
  );
}

/** One of a list: `[value, words]` each; gives the chosen value as the option holds it (text). */
export function SelectField({
  label,
  value,
  options,
  onChange,
  ...attributes
}: Pick<PartialSelectHTMLAttributes<HTMLSelectElement>, 'name' | 'required'> & {
  label: ComponentChildren;
  value: string | number;
  options: readonly (readonly [string | number, ComponentChildren])[];
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {label}{' '}
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)} {...attributes}>
        {options.map(([option, words]) => (
          <option key={option} value={option}>
            {words}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A checkbox with its words after it. */
export function CheckField({
  label,
  checked,
  onChange,
}: {
  label: ComponentChildren;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <label class="check">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} /> {label}
    </label>
  );
}
