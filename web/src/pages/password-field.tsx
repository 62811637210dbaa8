import { useId, useState } from 'preact/hooks';
import { inputLimits } from '../ui/limits';
import { language, t } from '../i18n/index.js';

/**
 * A password input with a Show/Hide button: a new password is typed once, and the person can
 * read what they typed instead of typing it twice.
 */
export function PasswordField({
  label,
  value,
  onInput,
  fresh = false,
  optional = false,
}: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  /** A new password (the service's rules for one, and the browser may suggest one). */
  fresh?: boolean;
  /** May be left empty (an account without a password confirms otherwise). */
  optional?: boolean;
}) {
  const [shown, setShown] = useState(false);
  const id = useId();
  const field = {
    id,
    value,
    onInput: (e: Event) => onInput((e.currentTarget as HTMLInputElement).value),
    autoComplete: fresh ? 'new-password' : 'current-password',
    required: !optional,
    ...(fresh
      ? inputLimits('POST /api/auth/password-reset/confirm', 'password')
      : inputLimits('POST /api/auth/password', 'currentPassword')),
  };
  // The button's name says which field it shows: in lower case, as in a sentence (German keeps its nouns' capitals).
  const named = language() === 'de' ? label : label.toLocaleLowerCase(language());
  // The button beside the label, not in it: the input's name stays the label's words alone.
  return (
    <div class="with-button">
      <label htmlFor={id}>
        {label}
        {/* One input either way (Preact patches the same element): the caret and the text stay. */}
        {shown ? <input type="text" {...field} /> : <input type="password" {...field} />}
      </label>
      <button
        type="button"
        class="link"
        aria-label={
          shown
            ? t('auth:passwordField.hideField', { field: named })
            : t('auth:passwordField.showField', { field: named })
        }
        onClick={() => setShown(!shown)}
      >
        {shown ? t('auth:passwordField.hide') : t('auth:passwordField.show')}
      </button>
    </div>
  );
}
