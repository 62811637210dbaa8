import { Store } from './store';
import type { User } from './api/types';

interface Session {
  token: string | null;
  user: User | null;
  /**
   * The service refused the token while this page was in use (it expired, or was revoked):
   * `user` stays, requests wait for the person to sign in again in place (api/client.ts), and
   * the page asks them to (pages/sign-in-again.tsx).
   */
  lapsed: boolean;
  /** The session had ended before this visit, or the person gave up signing in again: the page says so. */
  expired: boolean;
}

const KEY = 'maproom.session';

/**
 * An embed page (`/e/...`) reads the room with its embed key (`?key=mre_...`) or with no
 * credential at all, never with the session of whoever views the page: what it shows is the same
 * for everyone, and a page that frames it learns nothing of its visitor's account.
 */
export const embedded = /^\/e\//.test(location.pathname);
/** Only an embed key: a session or room token put in an address is not used. */
const embedKey = () => {
  const key = new URLSearchParams(location.search).get('key');
  return key?.startsWith('mre_') ? key : null;
};

/** When a token was issued and when it expires (seconds), read from the JWT's claims (not verified: the service does that). */
export function tokenTimes(token: string): { iat: number; exp: number } | null {
  try {
    const claims = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as {
      iat?: unknown;
      exp?: unknown;
    };
    return typeof claims.iat === 'number' && typeof claims.exp === 'number'
      ? { iat: claims.iat, exp: claims.exp }
      : null;
  } catch {
    return null;
  }
}

const SIGNED_OUT: Session = { token: null, user: null, lapsed: false, expired: false };

function read(text: string | null): { token: string; user: User } | null {
  try {
    const saved = JSON.parse(text ?? 'null') as { token: string; user: User } | null;
    return saved?.token && saved.user ? saved : null;
  } catch {
    return null; // a damaged entry is the same as none
  }
}

function stored(): Session {
  if (embedded) return { ...SIGNED_OUT, token: embedKey() };
  const saved = read(localStorage.getItem(KEY));
  if (!saved) return SIGNED_OUT;
  // Expired while no page was open: nothing waits to be saved, the page starts signed out.
  const times = tokenTimes(saved.token);
  if (times && times.exp * 1000 <= Date.now()) {
    localStorage.removeItem(KEY);
    return { ...SIGNED_OUT, expired: true };
  }
  return { token: saved.token, user: saved.user, lapsed: false, expired: false };
}

/** The signed-in user's session token, kept in localStorage (the service's bearer JWT). */
class SessionStore extends Store<Session> {
  private waiting: ((token: string | null) => void)[] = [];

  signIn(token: string, user: User) {
    localStorage.setItem(KEY, JSON.stringify({ token, user }));
    this.set({ token, user, lapsed: false, expired: false });
    this.release(token);
  }
  /** The signed-in user read again (an address confirmed, a name changed): the token stays. */
  withUser(user: User) {
    const { token, user: current, lapsed } = this.get();
    if (!token || lapsed || current?.id !== user.id) return;
    this.signIn(token, user);
  }
  /** Forgets the session in this page; `logOut` (api/client.ts) ends it at the service first. */
  signOut(expired = false) {
    localStorage.removeItem(KEY);
    this.set({ ...SIGNED_OUT, expired });
    this.release(null);
  }
  /**
   * The service refused `token` (401): unless the page has signed in anew since it was sent,
   * requests wait until the same person signs in again, keeping what they were sending.
   */
  lapse(token: string) {
    const current = this.get();
    if (current.token !== token || !current.user) return;
    localStorage.removeItem(KEY);
    this.set({ ...current, token: null, lapsed: true });
  }
  /** The token to send now, or, while the session has lapsed, once the person has signed in again (null if they sign out). */
  usable(): Promise<string | null> {
    const { token, lapsed } = this.get();
    if (!lapsed) return Promise.resolve(token);
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  private release(token: string | null) {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resume of waiting) resume(token);
  }
}

export const session = new SessionStore(stored());

// Another tab of the same person renewed the session or signed in again: this one takes the new
// token (a lapsed page sends what it kept). A tab that signs out leaves this one to find out itself.
addEventListener('storage', (event) => {
  if (event.key !== KEY || embedded) return;
  const saved = read(event.newValue);
  const { token, user } = session.get();
  if (saved && user?.id === saved.user.id && saved.token !== token) session.signIn(saved.token, saved.user);
});
