import { useEffect, useMemo, useState } from 'preact/hooks';
import type { RoomToken } from '../../api/types';
import { useStore } from '../../store';
import { createToken, loadTokens, RoomTokens, revokeToken } from '../actions/tokens';
import { useRoom } from '../room-context';
import { inputLimits } from '../../ui/limits';
import { confirmInPage } from '../../ui/confirm-dialog';
import { NumberField, TextField } from '../../ui/fields';

const NEW_TOKEN = 'POST /api/rooms/{roomId}/api-tokens';

const PERMISSIONS = ['read', 'write', 'upload'] as const;

/** Room API tokens for scripts: create (the secret is shown once), list, revoke. */
export function TokensSection() {
  const { roomId, notify, attempt } = useRoom();
  const list = useMemo(() => new RoomTokens(roomId), [roomId]);
  const tokens = useStore(list);
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<Set<(typeof PERMISSIONS)[number]>>(new Set(['read']));
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
    if (!(await confirmInPage(`Revoke the token "${token.name}"? Scripts using it stop working.`, 'Revoke'))) return;
    await attempt(() => revokeToken(list, token.id));
  };
  const toggle = (permission: (typeof PERMISSIONS)[number]) => {
    const next = new Set(permissions);
    if (next.has(permission)) next.delete(permission);
    else next.add(permission);
    setPermissions(next);
  };
  return (
    <section aria-labelledby="tokens">
      <h3 id="tokens">API tokens</h3>
      {secret && (
        <div class="note" role="status">
          <p>Copy the token now: it is not shown again.</p>
          <code data-testid="token-secret">{secret}</code>{' '}
          <button
            type="button"
            onClick={() =>
              navigator.clipboard.writeText(secret).then(
                () => notify('Copied'),
                () => notify('Select the token and copy it', 'error'),
              )
            }
          >
            Copy
          </button>{' '}
          <button type="button" onClick={() => setSecret(null)}>
            Done
          </button>
        </div>
      )}
      <ul class="list" data-testid="tokens">
        {tokens.map((t) => (
          <li key={t.id}>
            <span>
              {t.name}{' '}
              <span class="muted">
                {t.permissions.join(', ')}; expires {new Date(t.expiresAt).toLocaleDateString()}
                {t.lastUsedAt ? `; used ${new Date(t.lastUsedAt).toLocaleString()}` : ''}
              </span>
            </span>
            <button type="button" class="link" onClick={() => revoke(t)}>
              Revoke
            </button>
          </li>
        ))}
      </ul>
      <form class="form" onSubmit={create} aria-label="New token">
        <TextField label="Name" value={name} onInput={setName} required {...inputLimits(NEW_TOKEN, 'name')} />
        <fieldset class="row">
          <legend>Permissions</legend>
          {PERMISSIONS.map((permission) => (
            <label key={permission} class="check">
              <input type="checkbox" checked={permissions.has(permission)} onChange={() => toggle(permission)} />{' '}
              {permission}
            </label>
          ))}
        </fieldset>
        <NumberField
          label="Expires in (days)"
          {...inputLimits(NEW_TOKEN, 'expiresInDays')}
          value={days}
          onInput={setDays}
        />
        <button type="submit" disabled={permissions.size === 0}>
          Create token
        </button>
      </form>
    </section>
  );
}
