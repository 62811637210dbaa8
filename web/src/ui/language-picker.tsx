import { saveLocale } from '../api/account';
import { chooseLanguage, LANGUAGES, type Language, language, t } from '../i18n/index.js';

/**
 * The language of the page, chosen in this browser: each language named in itself (and marked
 * as written in it, for screen readers), the page shown again in the one chosen.
 */
export function LanguagePicker() {
  return (
    <p class="language-picker">
      <label>
        {t('common:language')}{' '}
        <select value={language()} onChange={(e) => chooseLanguage(e.currentTarget.value as Language, saveLocale)}>
          {(Object.entries(LANGUAGES) as [Language, string][]).map(([code, name]) => (
            <option key={code} value={code} lang={code}>
              {name}
            </option>
          ))}
        </select>
      </label>
    </p>
  );
}
