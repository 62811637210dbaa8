import createClient from 'openapi-fetch';
import type { paths } from './schema';
import { embedded, session } from '../session';

/** An error answer of the service: its status and `{error, message, details?}` body (ui/error-words.ts words it). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** Requests that carry no session and never wait for one: signing in, and what a signed-out person asks. */
const WITHOUT_SESSION = new Set([
  '/api/auth/login',
  '/api/auth/signup',
  '/api/auth/password-reset',
  '/api/auth/password-reset/confirm',
  '/api/auth/providers',
  '/api/auth/oidc/session',
]);

/**
 * The one place a request meets the session: `send` goes with the session's token; a 401 answer
 * to it (the session expired, or was revoked) lapses the session (session.ts) and `send` waits
 * for the person to sign in again in place (pages/sign-in-again.tsx), then goes again with the
 * new token, so a change made meanwhile is kept and lands. While the session has lapsed, new
 * requests wait the same way before being sent. If the person signs out instead, the first
 * refusal is the answer.
 */
export async function sendWithSession<R extends { status: number }>(send: (token: string | null) => Promise<R>) {
  let refused: R | undefined;
  for (;;) {
    const token = await session.usable();
    if (!token && refused) return refused;
    const answer = await send(token);
    // An embed page's key is not a session to sign in again for: its refusal is the answer.
    if (answer.status !== 401 || !token || embedded) return answer;
    refused = answer;
    session.lapse(token);
  }
}

/** `fetch` of the typed client: every request through `sendWithSession`, but sign-in's and those carrying their own credential. */
function sessionFetch(request: Request, init?: RequestInit): Promise<Response> {
  if (request.headers.has('Authorization') || WITHOUT_SESSION.has(new URL(request.url).pathname))
    return fetch(request, init);
  return sendWithSession((token) => {
    // A copy each time: a request's body can be sent once, and a refused one is sent again.
    const copy = request.clone();
    if (token) copy.headers.set('Authorization', `Bearer ${token}`);
    return fetch(copy, init);
  });
}

/** The typed client: every path, body and answer comes from the service's OpenAPI document. */
export const api = createClient<paths>({ baseUrl: location.origin, fetch: sessionFetch });

/** Awaits a call and returns its data, or throws its error as an ApiError. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const body = (error ?? {}) as { error?: string; message?: string; details?: unknown };
  throw new ApiError(
    response.status,
    body.error ?? 'error',
    body.message ?? `${response.status} ${response.statusText}`,
    body.details,
  );
}

/**
 * For `.catch`: a refusal with the given code becomes a value (`onRefusal('invalid_token', () =>
 * 'invalid')`), for a page whose next step depends on it; any other failure is thrown on.
 */
export function onRefusal<V>(code: string, value: (error: ApiError) => V) {
  return (error: unknown): V => {
    if (error instanceof ApiError && error.code === code) return value(error);
    throw error;
  };
}

/**
 * Logs out: the service ends the session on every instance, then the page forgets it. The page
 * forgets it even when the service cannot be reached or already refuses the token.
 */
export async function logOut(): Promise<void> {
  const { token } = session.get();
  try {
    // Its own credential: a session the service already refuses is not one to sign in again for.
    if (token) await api.POST('/api/auth/logout', { headers: { Authorization: `Bearer ${token}` } });
  } catch {
    // offline: the token is forgotten here all the same
  } finally {
    session.signOut();
  }
}

/** The message of an error for a person to read. */
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Adds the session's credential to requests the map makes to this service (tiles, icons, photos). */
export function authHeaders(): Record<string, string> {
  const token = session.get().token;
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** Fetches a file of this service (a photo, an export) through the session, as the typed client's requests go. */
export function fetchFile(url: string): Promise<Response> {
  return sendWithSession((token) => fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} }));
}

/** Fetches a file of this service with the credential, as an object URL for an <img>. */
export async function blobUrl(url: string): Promise<string> {
  const response = await fetchFile(url);
  if (!response.ok) throw new ApiError(response.status, 'error', `${response.status}`);
  // Typed as an image whatever the answer says, so the object URL can never be a page of this origin.
  return URL.createObjectURL(new Blob([await response.arrayBuffer()], { type: 'image/jpeg' }));
}
