import type { TokenRow } from './tokens.repository.js';

/** A room token as listed: never its secret, which only its creation answer shows. */
export const presentToken = (t: TokenRow) => ({
  id: t.id,
  name: t.name,
  permissions: t.permissions.split(','),
  createdAt: t.created_at,
  expiresAt: t.expires_at,
  lastUsedAt: t.last_used_at,
});
