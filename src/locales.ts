/**
 * The languages the service speaks to people (its e-mails), as the web application offers
 * them: a user's `locale` is one of these, or null for English.
 */
export const LOCALES = ['en', 'de', 'fr', 'it', 'es', 'ar'] as const;
export type Locale = (typeof LOCALES)[number];

export const isLocale = (value: unknown): value is Locale =>
  typeof value === 'string' && (LOCALES as readonly string[]).includes(value);

/**
 * The language of a BCP 47 tag as an identity provider's `locale` claim gives it (`de-CH`,
 * `fr_FR`, `ES`), when it is one the service speaks; otherwise null.
 */
export function localeOfTag(tag: unknown): Locale | null {
  if (typeof tag !== 'string') return null;
  const language = tag.trim().split(/[-_]/)[0]!.toLowerCase();
  return isLocale(language) ? language : null;
}
