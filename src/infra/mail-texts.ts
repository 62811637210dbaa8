import i18next, { type TFunction } from 'i18next';
import { isLocale, LOCALES } from '../locales.js';
import ar from './locales/ar/mail.json' with { type: 'json' };
import de from './locales/de/mail.json' with { type: 'json' };
import en from './locales/en/mail.json' with { type: 'json' };
import es from './locales/es/mail.json' with { type: 'json' };
import fr from './locales/fr/mail.json' with { type: 'json' };
import it from './locales/it/mail.json' with { type: 'json' };

// The e-mails' catalogs, a folder per language (locales/<lang>/mail.json) as the web application
// keeps its own, in the service's own i18next instance, ready at once: every catalog comes with
// the code. Mails are plain text, so nothing is escaped; a value is never read as a placeholder
// or a nested message (`skipOnVariables`, i18next's default).
const texts = i18next.createInstance();
void texts.init({
  resources: {
    en: { mail: en },
    de: { mail: de },
    fr: { mail: fr },
    it: { mail: it },
    es: { mail: es },
    ar: { mail: ar },
  },
  lng: 'en',
  fallbackLng: 'en',
  supportedLngs: [...LOCALES],
  ns: ['mail'],
  defaultNS: 'mail',
  initAsync: false,
  interpolation: { escapeValue: false, skipOnVariables: true },
});

/** The messages of the e-mails in a recipient's language (null or one the service does not speak: English). */
export function mailTexts(locale: string | null | undefined): TFunction<'mail'> {
  return texts.getFixedT(isLocale(locale) ? locale : 'en', 'mail');
}

/** "Hello Ann,\n\n", or "Hello,\n\n" without a name, in the texts' language. */
export const greeting = (t: TFunction<'mail'>, name: string | null): string =>
  `${name ? t('greetingNamed', { name }) : t('greeting')}\n\n`;
