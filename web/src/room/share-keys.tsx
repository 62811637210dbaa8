import { useEffect, useMemo, useState } from 'preact/hooks';
import type { EmbedKey } from '../api/types';
import { formatDateTime, t } from '../i18n/index.js';
import { useStore } from '../store';
import { confirmInPage } from '../ui/confirm-dialog';
import { NumberField, TextField } from '../ui/fields';
import { inputLimits } from '../ui/limits';
import { createEmbedKey, loadEmbedKeys, RoomEmbedKeys, revokeEmbedKey } from './actions/sharing';
import { useRoom } from './room-context';

const NEW_KEY = 'POST /api/rooms/{roomId}/embed-keys';

/** When a listed key expires and when it was last used. */
function keyDetails(key: EmbedKey): string {
  const expires = formatDateTime(key.expiresAt, { dateStyle: 'medium' });
  const layers = key.layers ? t('share:keys.someLayers', { count: key.layers.length }) : t('share:keys.allLayers');
  return key.lastUsedAt
    ? t('share:keys.detailsUsed', { layers, expires, used: formatDateTime(key.lastUsedAt) })
    : t('share:keys.details', { layers, expires });
}

/** A private room's embed keys: made here (the key goes into the embed code at once), listed, revoked. */
export function ShareKeys({ onCreated }: { onCreated: (key: string) => void }) {
  const { roomId, attempt } = useRoom();
  const list = useMemo(() => new RoomEmbedKeys(roomId), [roomId]);
  const keys = useStore(list);
  const [name, setName] = useState('');
  const [days, setDays] = useState(90);
  useEffect(() => void attempt(() => loadEmbedKeys(list)), [list]);
  const create = async (event: Event) => {
    event.preventDefault();
    const created = await attempt(() => createEmbedKey(list, { name: name.trim(), expiresInDays: days }));
    if (created === undefined) return;
    onCreated(created.key);
    setName('');
  };
  const revoke = async (key: EmbedKey) => {
    if (!(await confirmInPage(t('share:keys.revokeQuestion', { name: key.name }), t('share:keys.revoke')))) return;
    await attempt(() => revokeEmbedKey(list, key.id));
  };
  return (
    <section aria-labelledby="share-keys">
      <h3 id="share-keys">{t('share:keys.title')}</h3>
      <p class="muted">{t('share:keys.help')}</p>
      <ul class="list" data-testid="embed-keys">
        {keys.map((key) => (
          <li key={key.id}>
            <span>
              {key.name} <span class="muted">{keyDetails(key)}</span>
            </span>
            <button type="button" class="link" onClick={() => revoke(key)}>
              {t('share:keys.revoke')}
            </button>
          </li>
        ))}
      </ul>
      <form class="form" onSubmit={create} aria-label={t('share:keys.new')}>
        <TextField
          label={t('share:keys.name')}
          value={name}
          onInput={setName}
          required
          {...inputLimits(NEW_KEY, 'name')}
        />
        <NumberField
          label={t('share:keys.days')}
          value={days}
          onInput={setDays}
          required
          {...inputLimits(NEW_KEY, 'expiresInDays')}
        />
        <button type="submit">{t('share:keys.create')}</button>
      </form>
    </section>
  );
}
