/**
 * What a form's input holds, read as the page sends it (and back): the parsing of the shared
 * fields (ui/fields.tsx) and of the forms' few text conventions. Pure; test/web/field-values.test.ts.
 */

/** A number input's text as a number: an emptied input is 0, as `Number` reads it. */
export function numberOf(text: string): number {
  return Number(text);
}

/** A number input that may be left empty: empty is `null` (no value), anything else a number. */
export function numberOrNull(text: string): number | null {
  return text.trim() === '' ? null : Number(text);
}

/** Comma-separated tags: each trimmed, the empty ones dropped ("a, , b," is a and b). */
export function tagsOf(text: string): string[] {
  return text
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
}

/** A moment (ms since 1970) as a date input's `yyyy-mm-dd` (its UTC day); empty for none. */
export function dateInput(ms: number | null | undefined): string {
  return ms == null ? '' : new Date(ms).toISOString().slice(0, 10);
}

/** A date input's `yyyy-mm-dd` as the moment its UTC day starts; `null` when empty. */
export function dateOf(text: string): number | null {
  return text ? Date.parse(`${text}T00:00:00Z`) : null;
}
