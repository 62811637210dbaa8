import {
  basicNeedsRoomToken,
  basicNotAccepted,
  invalidApiToken,
  invalidEmbedKey,
  invalidSession,
  malformedBasic,
  unauthorized,
} from '../errors.js';
import type { ApiTokensTable, EmbedKeysTable, UsersTable } from '../db/tables.js';
import type { Caller } from './access.js';
import type { AccessSource } from './access-source.js';
import { hashRoomToken, isEmbedKey, isRoomToken, type TokenPermission } from './room-tokens.js';
import type { SessionClaims, SessionKeys } from './sessions.js';

/** `lastUsedAt` of a token and `last_seen_at` of a user are written at most once a minute, to keep reads cheap. */
export const LAST_USED_PRECISION_MS = 60_000;
/** External users remembered per instance: fixed, a memo cleared when full, not a cache to size. */
export const SEEN_EXTERNAL_LIMIT = 10_000;
/** Room token secrets whose hash is remembered (a hash is cheap, but not free on every request); fixed like the above. */
export const TOKEN_HASHES_LIMIT = 1_000;

/**
 * What authenticating a caller records. The authenticator only reads; the services that own
 * the data write (token use, an external user's account and their invitations).
 */
export interface SignInRecords {
  tokenUsed(tokenId: string, at: number): Promise<void>;
  /** An embed key was used (at most once a minute per key). */
  embedKeyUsed(keyId: string, at: number): Promise<void>;
  /** A session of the user was used (at most once a minute per user). */
  userSeen(userId: string, at: number): Promise<void>;
  /** The first request of an external provider's session token; throws 401 to refuse it. */
  externalSignIn(claims: SessionClaims): Promise<void>;
}

/** The caller without a credential (shared, never changed). */
const ANONYMOUS: Caller = Object.freeze({ kind: 'anonymous' });

/** The credential of an Authorization header `Bearer <credential>`; undefined for any other. */
export const bearerOf = (header: string) => /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];

/** An Authorization header of the Basic scheme, well-formed or not. */
const BASIC_SCHEME = /^Basic(?:\s|$)/i;
export const isBasicScheme = (header: string) => BASIC_SCHEME.test(header);
/** `Basic <token68>`: the base64 of `name:password` (RFC 7617). */
const BASIC_CREDENTIALS = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i;

/**
 * The password of an HTTP Basic header: what follows the first colon of the decoded
 * `name:password` (the name may be anything, even empty; the password may hold colons).
 * Undefined when the header is not well-formed.
 */
function basicPassword(header: string): string | undefined {
  const match = BASIC_CREDENTIALS.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/** Turns an Authorization header into a caller, or throws 401. */
export class Authenticator {
  /** External session tokens already handled (`sub:iat`): their user exists, invitations are accepted. */
  private readonly seenExternal = new Set<string>();
  /**
   * Authorization header to its secret's hash, for the tokens in use: SHA-256 on every request cost more than the cached
   * lookup it leads to. Only the hash is looked up (and cached) as the token, so revoking one
   * still takes effect at once; the secrets stay in this process's memory, never in a log.
   */
  private readonly tokenHashes = new Map<string, string>();
  /** The caller of each token row the source holds: made once, not on every request. */
  private readonly tokenCallers = new WeakMap<ApiTokensTable, Caller>();
  /** The caller of each embed key row the source holds, likewise. */
  private readonly embedCallers = new WeakMap<EmbedKeysTable, Caller>();

  constructor(
    private readonly sessions: SessionKeys,
    private readonly source: AccessSource,
    private readonly records: SignInRecords,
  ) {}

  /**
   * `acceptsBasic`: the route also takes a room token as the password of HTTP Basic (GIS
   * clients: the OGC API and the tiles); elsewhere a Basic header is refused, never anonymous.
   */
  async resolve(header: string | undefined, acceptsBasic = false): Promise<Caller> {
    if (header === undefined || header === '') return ANONYMOUS;
    if (BASIC_SCHEME.test(header)) return this.basic(header, acceptsBasic);
    const bearer = bearerOf(header);
    if (bearer === undefined) throw unauthorized('The Authorization header must be "Bearer <token>"');
    if (isRoomToken(bearer)) return this.roomToken(header, bearer);
    return isEmbedKey(bearer) ? this.embedKey(header, bearer) : this.session(bearer);
  }

  /** HTTP Basic: only a room token, as the password, and looked up as one sent as Bearer. */
  private basic(header: string, accepted: boolean): Promise<Caller> {
    if (!accepted) throw basicNotAccepted();
    const password = basicPassword(header);
    if (password === undefined) throw malformedBasic();
    if (!isRoomToken(password)) throw basicNeedsRoomToken();
    return this.roomToken(header, password);
  }

  /** An embed key: a room token that reads only (its layers, on the routes that admit it). */
  private async embedKey(header: string, secret: string): Promise<Caller> {
    const row = await this.source.embedKeyByHash(this.hashOf(header, secret));
    const now = Date.now();
    if (!row || row.expires_at <= now) throw invalidEmbedKey();
    if (row.last_used_at === null || now - row.last_used_at >= LAST_USED_PRECISION_MS) {
      row.last_used_at = now; // the cached row too, so the next request does not write again
      await this.records.embedKeyUsed(row.id, now);
    }
    let caller = this.embedCallers.get(row);
    if (!caller) {
      const layers = row.layers === null ? null : new Set<string>(JSON.parse(row.layers) as string[]);
      caller = { kind: 'token', tokenId: row.id, roomId: row.room_id, permissions: ['read'], embed: { layers } };
      this.embedCallers.set(row, caller);
    }
    return caller;
  }

  /**
   * `resolve` without waiting, when all it needs is at hand: no credential, or a room token
   * whose row the source holds and whose use was recorded within the minute. Undefined
   * otherwise (and for every refusal, a Basic header where `acceptsBasic` is false among
   * them): then `resolve` decides. Allocates nothing.
   */
  resolveNow(header: string | undefined, acceptsBasic = false): Caller | undefined {
    if (header === undefined || header === '') return ANONYMOUS;
    const hash = this.tokenHashes.get(header);
    const known = hash === undefined ? undefined : this.source.knownTokenByHash?.(hash);
    const row = known?.value;
    if (!row || (!acceptsBasic && BASIC_SCHEME.test(header))) return undefined;
    const now = Date.now();
    if (row.expires_at <= now || row.last_used_at === null || now - row.last_used_at >= LAST_USED_PRECISION_MS)
      return undefined;
    return this.callerOf(row);
  }

  private async roomToken(header: string, secret: string): Promise<Caller> {
    const row = await this.source.tokenByHash(this.hashOf(header, secret));
    const now = Date.now();
    if (!row || row.expires_at <= now) throw invalidApiToken();
    if (row.last_used_at === null || now - row.last_used_at >= LAST_USED_PRECISION_MS) {
      row.last_used_at = now; // the cached row too, so the next request does not write again
      await this.records.tokenUsed(row.id, now);
    }
    return this.callerOf(row);
  }

  /** The token's caller, one per row the source holds (shared by its requests, never changed). */
  private callerOf(row: ApiTokensTable): Caller {
    let caller = this.tokenCallers.get(row);
    if (!caller) {
      caller = {
        kind: 'token',
        tokenId: row.id,
        roomId: row.room_id,
        permissions: row.permissions.split(',') as TokenPermission[],
      };
      this.tokenCallers.set(row, caller);
    }
    return caller;
  }

  /** The hash of a room token's secret, remembered by the Authorization header that carried it. */
  private hashOf(header: string, secret: string): string {
    let hash = this.tokenHashes.get(header);
    if (hash === undefined) {
      hash = hashRoomToken(secret);
      if (this.tokenHashes.size >= TOKEN_HASHES_LIMIT) this.tokenHashes.clear();
      this.tokenHashes.set(header, hash);
    }
    return hash;
  }

  private async session(jwt: string): Promise<Caller> {
    const claims = await this.sessions.verify(jwt);
    if (await this.source.sessionRevoked(claims.sessionId)) throw invalidSession();
    const session = {
      id: claims.sessionId,
      expiresAt: claims.expiresAt,
      signedInAt: claims.signedInAtMs,
      external: claims.external,
    };
    if (claims.external) {
      const key = `${claims.userId}:${claims.issuedAt}`;
      if (!this.seenExternal.has(key)) {
        await this.records.externalSignIn(claims);
        if (this.seenExternal.size >= SEEN_EXTERNAL_LIMIT) this.seenExternal.clear();
        this.seenExternal.add(key);
      }
      await this.activeUser(claims);
      return { kind: 'user', userId: claims.userId, email: claims.email, emailVerified: claims.emailVerified, session };
    }
    const user = await this.activeUser(claims);
    // The address as it is now: verified since the token was issued, or changed.
    return {
      kind: 'user',
      userId: user.id,
      email: user.email,
      emailVerified: user.email_verified_at !== null,
      session,
    };
  }

  /**
   * The session's user, read on every request (never cached), so that a disabled, deleted or
   * reset account refuses its sessions at once on every instance; its use is recorded.
   */
  private async activeUser(claims: SessionClaims): Promise<UsersTable> {
    const user = await this.source.userById(claims.userId);
    if (!user || accountRefuses(user, claims)) throw invalidSession();
    const now = Date.now();
    if (user.last_seen_at === null || now - user.last_seen_at >= LAST_USED_PRECISION_MS)
      await this.records.userSeen(user.id, now);
    return user;
  }
}

/**
 * Whether the account refuses a session of its own: when deleted or disabled, or when the
 * person signed in to the session before the account's cut-off (`sessions_not_before`: a password reset or
 * change), except the one session the cut-off keeps (the one that changed the password).
 */
export function accountRefuses(
  user: Pick<UsersTable, 'deleted_at' | 'disabled_at' | 'sessions_not_before' | 'sessions_kept'>,
  claims: Pick<SessionClaims, 'sessionId' | 'signedInAtMs'>,
): boolean {
  if (user.deleted_at !== null || user.disabled_at !== null) return true;
  const cutOff = user.sessions_not_before;
  return cutOff !== null && claims.signedInAtMs < cutOff && claims.sessionId !== user.sessions_kept;
}
