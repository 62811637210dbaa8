import i18next from 'i18next';
import en from './locales/en.js';

/** The languages the application speaks, each named in itself (as a person looks for it). */
export const LANGUAGES = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  it: 'Italiano',
  es: 'Español',
  ar: 'العربية',
} as const;
export type Language = keyof typeof LANGUAGES;

/** Where the chosen language is remembered in the browser. */
export const LANGUAGE_KEY = 'maproom.language';

/** English comes with the application; another language is fetched (one chunk) when chosen. */
const CATALOGS: Record<Exclude<Language, 'en'>, () => Promise<{ default: Record<string, object> }>> = {
  de: () => import('./locales/de.js'),
  fr: () => import('./locales/fr.js'),
  it: () => import('./locales/it.js'),
  es: () => import('./locales/es.js'),
  ar: () => import('./locales/ar.js'),
};

// English is ready at once (also for the unit tests, which run without a browser); the page's
// own language comes with `startLanguage`.
void i18next.init({
  resources: { en },
  lng: 'en',
  fallbackLng: 'en',
  supportedLngs: Object.keys(LANGUAGES),
  load: 'languageOnly',
  ns: Object.keys(en),
  defaultNS: 'common',
  partialBundledLanguages: true,
  initAsync: false,
  interpolation: { escapeValue: false },
});

/** A message of the catalogs, as `t('common:close')`; with values, as `t(key, { count })`. */
export const t = i18next.t.bind(i18next);

/** The language the page speaks now: for `Intl` and for what is stored on the account. */
export function language(): Language {
  return (i18next.resolvedLanguage ?? 'en') as Language;
}

/**
 * Finds the page's language (the one chosen in this browser, else the browser's own, else
 * English), fetches its catalog, and sets the document's language and direction.
 */
export async function startLanguage(): Promise<void> {
  const chosen =
    [localStorage.getItem(LANGUAGE_KEY), ...navigator.languages]
      .map((tag) => tag?.split('-')[0])
      .find((l): l is Language => !!l && Object.hasOwn(LANGUAGES, l)) ?? 'en';
  if (chosen !== 'en') {
    const catalog = (await CATALOGS[chosen]()).default;
    for (const [ns, messages] of Object.entries(catalog)) i18next.addResourceBundle(chosen, ns, messages);
  }
  await i18next.changeLanguage(chosen);
  document.documentElement.lang = chosen;
  document.documentElement.dir = i18next.dir(chosen);
}

/**
 * Remembers the language chosen in this browser and shows the page again in it. A signed-in
 * person's account keeps it first, for the e-mails the service writes to them, through
 * `saveToAccount` (api/account.ts `saveLocale`, given by the picker: the account's requests sit
 * above the catalogs); a save that fails does not stop the reload.
 */
export async function chooseLanguage(
  chosen: Language,
  saveToAccount?: (chosen: Language) => Promise<void>,
): Promise<void> {
  localStorage.setItem(LANGUAGE_KEY, chosen);
  try {
    await saveToAccount?.(chosen);
  } catch {
    // Not saved (offline, refused, the session ended): this browser speaks the language anyway.
  }
  location.reload();
}

/** A number in the page's language: `12,345.6` in English, `12.345,6` in German. */
export const formatNumber = (value: number, options?: Intl.NumberFormatOptions): string =>
  new Intl.NumberFormat(language(), options).format(value);

/** A date and time in the page's language (its date and time by default). */
export const formatDateTime = (
  when: number | string | Date,
  options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' },
): string => new Intl.DateTimeFormat(language(), options).format(new Date(when));
