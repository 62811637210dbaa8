import { useEffect, useMemo, useState } from 'preact/hooks';
import type { RoomToken } from '../../api/types';
import { useStore } from '../../store';
import { createToken, loadTokens, RoomTokens, revokeToken } from '../actions/tokens';
import { useRoom } from '../room-context';
import { inputLimits } from '../../ui/limits';
import { confirmInPage } from '../../ui/confirm-dialog';
import { NumberField, TextField } from '../../ui/fields';
import { formatDateTime, language, t } from '../../i18n/index.js';

const NEW_TOKEN = 'POST /api/rooms/{roomId}/api-tokens';

const PERMISSIONS = ['read', 'write', 'upload'] as const;
type Permission = (typeof PERMISSIONS)[number];

/** A permission as the page names it (lowercase in English). */
function permissionWord(permission: string): string {
  switch (permission) {
    case 'read':
      return t('settings:tokens.permission.read');
    case 'write':
      return t('settings:tokens.permission.write');
    case 'upload':
      return t('settings:tokens.permission.upload');
    default:
      return permission;
  }
}

/** What a listed token may do, when it expires and when it was last used. */
function tokenDetails(token: RoomToken): string {
  const permissions = new Intl.ListFormat(language(), { type: 'unit', style: 'short' }).format(
    token.permissions.map(permissionWord),
  );
  const expires = formatDateTime(token.expiresAt, { dateStyle: 'medium' });
  return token.lastUsedAt
    ? t('settings:tokens.detailsUsed', { permissions, expires, used: formatDateTime(token.lastUsedAt) })
    : t('settings:tokens.details', { permissions, expires });
}

/** Room API tokens for scripts: create (the secret is shown once), list, revoke. */
export function TokensSection() {
  const { roomId, notify, attempt } = useRoom();
  const list = useMemo(() => new RoomTokens(roomId), [roomId]);
  const tokens = useStore(list);
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<Set<Permission>>(new Set(['read']));
  const [days, setDays] = useState(30);
  const [secret, setSecret] = useState<string | null>(null);
  useEffect(() => void attempt(() => loadTokens(list)), [list]);
  const create = async (event: Event) => {
    event.preventDefault();
    const body = { name: name.trim(), permissions: [...permissions], expiresInDays: days };
    const created = await attempt(() => createToken(list, body));
    if (created === undefined) return;
    setSecret(created);
    setName('');
  };
  const revoke = async (token: RoomToken) => {
    if (!(await confirmInPage(t('settings:tokens.revokeQuestion', { name: token.name }), t('settings:tokens.revoke'))))
      return;
    await attempt(() => revokeToken(list, token.id));
  };
  const toggle = (permission: Permission) => {
    const next = new Set(permissions);
    if (next.has(permission)) next.delete(permission);
    else next.add(permission);
    setPermissions(next);
  };
  return (
    <section aria-labelledby="tokens">
      <h3 id="tokens">{t('settings:tokens.title')}</h3>
      {secret && (
        <div class="note" role="status">
          <p>{t('settings:tokens.copyNow')}</p>
          <code data-testid="token-secret">{secret}</code>{' '}
          <button
            type="button"
            onClick={() =>
              navigator.clipboard.writeText(secret).then(
                () => notify(t('settings:tokens.copied')),
                () => notify(t('settings:tokens.copyFailed'), 'error'),
              )
            }
          >
            {t('settings:tokens.copy')}
          </button>{' '}
          <button type="button" onClick={() => setSecret(null)}>
            {t('settings:tokens.done')}
          </button>
        </div>
      )}
      <ul class="list" data-testid="tokens">
        {tokens.map((token) => (
          <li key={token.id}>
            <span>
              {token.name} <span class="muted">{tokenDetails(token)}</span>
            </span>
            <button type="button" class="link" onClick={() => revoke(token)}>
              {t('settings:tokens.revoke')}
            </button>
          </li>
        ))}
      </ul>
      <form class="form" onSubmit={create} aria-label={t('settings:tokens.newToken')}>
        <TextField
          label={t('settings:tokens.name')}
          value={name}
          onInput={setName}
          required
          {...inputLimits(NEW_TOKEN, 'name')}
        />
        <fieldset class="row">
          <legend>{t('settings:tokens.permissions')}</legend>
          {PERMISSIONS.map((permission) => (
            <label key={permission} class="check">
              <input type="checkbox" checked={permissions.has(permission)} onChange={() => toggle(permission)} />{' '}
              {permissionWord(permission)}
            </label>
          ))}
        </fieldset>
        <NumberField
          label={t('settings:tokens.expiresIn')}
          {...inputLimits(NEW_TOKEN, 'expiresInDays')}
          value={days}
          onInput={setDays}
        />
        <button type="submit" disabled={permissions.size === 0}>
          {t('settings:tokens.create')}
        </button>
      </form>
    </section>
  );
}
