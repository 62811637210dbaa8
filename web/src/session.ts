import { Store } from './store';
import type { User } from './api/types';

interface Session {
  token: string | null;
  user: User | null;
  /** Set when the service refused the stored token (expired): the page asks to log in again. */
  expired: boolean;
}

const KEY = 'maproom.session';

function stored(): Session {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? 'null') as { token: string; user: User } | null;
    if (saved?.token) return { token: saved.token, user: saved.user, expired: false };
  } catch {
    // a damaged entry is the same as none
  }
  return { token: null, user: null, expired: false };
}

/** The signed-in user's session token, kept in localStorage (the service's bearer JWT). */
class SessionStore extends Store<Session> {
  signIn(token: string, user: User) {
    localStorage.setItem(KEY, JSON.stringify({ token, user }));
    this.set({ token, user, expired: false });
  }
  /** Forgets the session in this page; `logOut` (api/client.ts) ends it at the service first. */
  signOut() {
    localStorage.removeItem(KEY);
    this.set({ token: null, user: null, expired: false });
  }
  expired() {
    localStorage.removeItem(KEY);
    this.set({ token: null, user: null, expired: true });
  }
}

export const session = new SessionStore(stored());
