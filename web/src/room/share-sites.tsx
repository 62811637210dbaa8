import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n/index.js';
import { CheckField, TextAreaField } from '../ui/fields';
import { readEmbedOrigins, saveEmbedOrigins } from './actions/sharing';
import { useRoom } from './room-context';

/** The sites that may show the room's embed (`frame-ancestors`): any site (public content only), or a list. */
export function ShareSites({ isPublic }: { isPublic: boolean }) {
  const { roomId, attempt, notify } = useRoom();
  const [anySite, setAnySite] = useState(false);
  const [text, setText] = useState('');
  const [loaded, setLoaded] = useState(false);
  const show = (origins: string[]) => {
    setAnySite(origins[0] === '*');
    setText(origins[0] === '*' ? '' : origins.join('\n'));
    setLoaded(true);
  };
  useEffect(() => void attempt(() => readEmbedOrigins(roomId).then(show)), [roomId]);
  const save = async (event: Event) => {
    event.preventDefault();
    const origins = anySite ? ['*'] : text.split(/[\s,]+/).filter((entry) => entry !== '');
    const saved = await attempt(() => saveEmbedOrigins(roomId, origins));
    if (saved === undefined) return;
    show(saved);
    notify(t('share:sites.saved'));
  };
  if (!loaded) return null;
  return (
    <section aria-labelledby="share-sites">
      <h3 id="share-sites">{t('share:sites.title')}</h3>
      <form class="form" onSubmit={save}>
        {isPublic && <CheckField label={t('share:sites.any')} checked={anySite} onChange={setAnySite} />}
        {!anySite && (
          <TextAreaField
            label={t('share:sites.list')}
            value={text}
            onInput={setText}
            rows={3}
            placeholder={t('share:sites.example')}
          />
        )}
        <p class="muted">{t('share:sites.help')}</p>
        <button type="submit">{t('share:sites.save')}</button>
      </form>
    </section>
  );
}
