/** The longest path a sign-in may come back to. */
export const RETURN_TO_MAX = 2048;

/**
 * Where a sign-in may send the browser afterwards: a path of this site (one leading `/`, not
 * `//` or `/\`, which browsers read as another host), without control characters; anything
 * else becomes `/`. No open redirect through `returnTo`.
 */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length > RETURN_TO_MAX) return '/';
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  // Tabs and newlines are dropped by URL parsers (`/\t/evil.example`), and a backslash anywhere is suspect.
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return '/';
  return value;
}
