import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks (standardwebhooks.com): a secret is `whsec_` and the base64 of its key
 * bytes; a delivery is signed with HMAC-SHA256 of `<id>.<timestamp>.<body>` under those
 * bytes, and carries `webhook-id`, `webhook-timestamp` (seconds) and
 * `webhook-signature: v1,<base64>`. Receivers verify it with the format's own libraries.
 */

export const SECRET_PREFIX = 'whsec_';

/** A secret as a person may give it: `whsec_` and the base64 of 24 to 64 bytes. */
export const SECRET_PATTERN = '^whsec_[A-Za-z0-9+/]{32,88}={0,2}$';

/** A new secret: 24 random bytes (192 bits), as the format's own libraries make them. */
export const newSecret = (): string => SECRET_PREFIX + randomBytes(24).toString('base64');

/** The three headers of a delivery of `body` with message id `id`, sent at `at` (epoch ms). */
export function signedHeaders(secret: string, id: string, at: number, body: string): Record<string, string> {
  const timestamp = Math.floor(at / 1000).toString();
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
