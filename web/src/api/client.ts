import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import { session } from '../session';

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

const authorize: Middleware = {
  onRequest({ request }) {
    const token = session.get().token;
    if (token && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${token}`);
    return request;
  },
};

/** The typed client: every path, body and answer comes from the service's OpenAPI document. */
export const api = createClient<paths>({ baseUrl: location.origin });
api.use(authorize);

/** Awaits a call and returns its data, or throws its error as an ApiError. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const body = (error ?? {}) as { error?: string; message?: string; details?: unknown };
  if (response.status === 401 && session.get().token) session.expired();
  throw new ApiError(
    response.status,
    body.error ?? 'error',
    body.message ?? `${response.status} ${response.statusText}`,
    body.details,
  );
}

/**
 * Logs out: the service ends the session on every instance, then the page forgets it. The page
 * forgets it even when the service cannot be reached or already refuses the token.
 */
export async function logOut(): Promise<void> {
  try {
    if (session.get().token) await api.POST('/api/auth/logout');
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

/** Fetches a file of this service with the credential, as an object URL for an <img>. */
export async function blobUrl(url: string): Promise<string> {
  const response = await fetch(url, { headers: authHeaders() });
  if (!response.ok) throw new ApiError(response.status, 'error', `${response.status}`);
  // Typed as an image whatever the answer says, so the object URL can never be a page of this origin.
  return URL.createObjectURL(new Blob([await response.arrayBuffer()], { type: 'image/jpeg' }));
}
