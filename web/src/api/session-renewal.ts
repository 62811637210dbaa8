import { session, tokenTimes } from '../session';
import { api } from './client';

/** What counts as using the page: a click or touch, a key, scrolling. Live changes arriving do not. */
const USE = ['pointerdown', 'keydown', 'wheel', 'touchstart'] as const;
/** After a renewal that failed (offline), the next try waits at least this long. */
const RETRY_MS = 10_000;
/** setTimeout's longest wait. */
const LONGEST_MS = 2 ** 31 - 1;

/**
 * Keeps the session of a person who uses the page: once half of the token's life (as this page
 * counts it) has passed and the page was used since the token came, the token is renewed
 * (`POST /api/auth/session`); if nobody used it, the first use before the token expires renews
 * it. A page left alone lets its session expire: the next request finds it refused and the
 * person signs in again in place (api/client.ts).
 */
export function keepSessionRenewed() {
  let used = false;
  let due = false;
  let renewing = false;
  let notBefore = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let token: string | null = null;

  const renew = async () => {
    const sent = session.get().token;
    if (!sent || renewing || Date.now() < notBefore) return;
    // Already expired by this page's clock: the next request finds out, and keeps what it sends.
    if ((tokenTimes(sent)?.exp ?? 0) * 1000 <= Date.now()) return;
    renewing = true;
    try {
      // Its own credential: a refusal means the session is gone, said at once (not waited on).
      const { data, response } = await api.POST('/api/auth/session', { headers: { Authorization: `Bearer ${sent}` } });
      if (data) session.signIn(data.token, data.user);
      else if (response.status === 401) session.lapse(sent);
      // 403: a session this service does not renew (an identity provider's JWT): not asked again.
      else notBefore = response.status === 403 ? Number.POSITIVE_INFINITY : Date.now() + RETRY_MS;
    } catch {
      notBefore = Date.now() + RETRY_MS;
    } finally {
      renewing = false;
    }
  };

  const schedule = () => {
    clearTimeout(timer);
    used = false;
    due = false;
    notBefore = 0;
    const { token: current, lapsed } = session.get();
    const times = current && !lapsed ? tokenTimes(current) : null;
    if (!times) return;
    // Half the life, or half of what is left of it by this page's clock, whichever is sooner.
    const half = Math.min((times.exp - times.iat) * 500, (times.exp * 1000 - Date.now()) / 2);
    timer = setTimeout(
      () => {
        due = true;
        if (used) void renew();
      },
      Math.max(0, Math.min(half, LONGEST_MS)),
    );
  };

  const onUse = () => {
    used = true;
    if (due) void renew();
  };
  for (const type of USE) addEventListener(type, onUse, { capture: true, passive: true });

  session.subscribe(({ token: next, lapsed }) => {
    const current = lapsed ? null : next;
    if (current === token) return;
    token = current;
    schedule();
  });
  token = session.get().token;
  schedule();
}
