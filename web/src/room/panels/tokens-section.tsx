import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import type { RoomToken } from '../../api/types';
import { useRoom } from '../room-context';

const PERMISSIONS = ['read', 'write', 'upload'] as const;

/** Room API tokens for scripts: create (the secret is shown once), list, revoke. */
export function TokensSection() {
  const { roomId, notify, attempt } = useRoom();
  const [tokens, setTokens] = useState<RoomToken[]>([]);
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<Set<(typeof PERMISSIONS)[number]>>(new Set(['read']));
  const [days, setDays] = useState(30);
  const [secret, setSecret] = useState<string | null>(null);
  const p = { params: { path: { roomId } } };
  const load = async () => setTokens((await ok(api.GET('/api/rooms/{roomId}/api-tokens', p))).tokens);
  useEffect(() => void attempt(load), []);
  const create = async (event: Event) => {
    event.preventDefault();
    await attempt(async () => {
      const answer = await ok(
        api.POST('/api/rooms/{roomId}/api-tokens', {
          ...p,
          body: { name: name.trim(), permissions: [...permissions], expiresInDays: days },
        }),
      );
      setSecret(answer.token);
      setName('');
      await load();
    });
  };
  const revoke = async (token: RoomToken) => {
    if (!confirm(`Revoke the token "${token.name}"? Scripts using it stop working.`)) return;
    await attempt(async () => {
      await ok(
        api.DELETE('/api/rooms/{roomId}/api-tokens/{tokenId}', { params: { path: { roomId, tokenId: token.id } } }),
      );
      await load();
    });
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
        <label>
          Name <input value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={100} />
        </label>
        <fieldset class="row">
          <legend>Permissions</legend>
          {PERMISSIONS.map((permission) => (
            <label key={permission} class="check">
              <input type="checkbox" checked={permissions.has(permission)} onChange={() => toggle(permission)} />{' '}
              {permission}
            </label>
          ))}
        </fieldset>
        <label>
          Expires in (days){' '}
          <input type="number" min={1} max={365} value={days} onInput={(e) => setDays(Number(e.currentTarget.value))} />
        </label>
        <button type="submit" disabled={permissions.size === 0}>
          Create token
        </button>
      </form>
    </section>
  );
}
