import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRemoteJWKSet, decodeJwt, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Config } from '../config.js';
import { normalizeEmail } from '../emails.js';
import { invalidSession, unauthorized } from '../errors.js';
import { newId, sha256 } from '../ids.js';

export const LOCAL_ISSUER = 'maproom';
/** Clone grants are signed like sessions but for another audience: one can never pass for the other. */
const GRANT_AUDIENCE = 'maproom-clone-grant';

export interface SessionClaims {
  userId: string;
  email: string;
  /** True when an external identity provider issued the token. */
  external: boolean;
  /** Whether the e-mail counts as proven: an external token must say `email_verified: true`. */
  emailVerified: boolean;
  issuedAt: number;
  /**
   * When the person signed in, in milliseconds: the service's own JWTs carry it as `auth_ms`,
   * copied unchanged by every renewal (older ones only have `iat_ms`, when the JWT was issued;
   * `iat` is in whole seconds, too coarse to tell a session issued just after a password reset
   * from one issued just before); for other JWTs, `iat` × 1000. The cut-off of an account's
   * sessions, the fresh sign-in and the longest a session renews compare against it.
   */
  signedInAtMs: number;
  /**
   * What logging out revokes: the `jti` of the service's own JWTs; for a JWT without one (an
   * external provider's, or one issued before sessions had ids) a hash of the JWT itself.
   */
  sessionId: string;
  /** When the JWT expires (ms): its revocation is kept until then. */
  expiresAt: number;
}

/** Issues the service's own JWTs and verifies them and, if configured, external ones. */
export class SessionKeys {
  private readonly secret: Uint8Array;
  private readonly jwks?: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly config: Config) {
    this.secret = new TextEncoder().encode(config.jwtSecret ?? loadOrCreateSecret(config.dataDir));
    if (config.authJwksUrl) this.jwks = createRemoteJWKSet(new URL(config.authJwksUrl));
  }

  /**
   * A session JWT for the user, valid SESSION_TTL_SECONDS. A renewal passes the session's id
   * and sign-in time, so that the renewed JWT is the same session (logging out ends both) and
   * is no fresher a sign-in than the one it renews.
   */
  async issue(
    user: { id: string; email: string },
    renewed?: { sessionId: string; signedInAtMs: number },
  ): Promise<string> {
    const now = Date.now();
    return new SignJWT({ email: user.email, iat_ms: now, auth_ms: renewed?.signedInAtMs ?? now })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setIssuer(LOCAL_ISSUER)
      .setAudience(LOCAL_ISSUER)
      .setIssuedAt()
      .setExpirationTime(`${this.config.sessionTtlSeconds}s`)
      .setJti(renewed?.sessionId ?? newId('session'))
      .sign(this.secret);
  }

  /**
   * A signed statement that its holder may copy the room's bulky data until `expiresAt` (a
   * clone grant). It names the room by id and creation time, so that it does not cover a
   * later room that takes the id of a deleted one.
   */
  async issueGrant(
    room: { id: string; created_at: number },
    lifetimeSeconds: number,
  ): Promise<{ grant: string; expiresAt: number }> {
    const expiresAt = Math.floor(Date.now() / 1000) + lifetimeSeconds;
    const grant = await new SignJWT({ roomCreatedAt: room.created_at })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(room.id)
      .setIssuer(LOCAL_ISSUER)
      .setAudience(GRANT_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(expiresAt)
      .sign(this.secret);
    return { grant, expiresAt: expiresAt * 1000 };
  }

  /** The room a clone grant covers (id and creation time), or null when the grant is not one of ours, was altered or expired. */
  async grantedRoom(grant: string): Promise<{ id: string; createdAt: number } | null> {
    try {
      const { payload } = await jwtVerify(grant, this.secret, {
        issuer: LOCAL_ISSUER,
        audience: GRANT_AUDIENCE,
        algorithms: ['HS256'],
        requiredClaims: ['exp', 'sub'],
      });
      const createdAt = payload.roomCreatedAt;
      return payload.sub && typeof createdAt === 'number' ? { id: payload.sub, createdAt } : null;
    } catch {
      return null;
    }
  }

  async verify(token: string): Promise<SessionClaims> {
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw invalidSession();
    }
    const external = Boolean(this.jwks) && issuer === this.config.authIssuer && issuer !== LOCAL_ISSUER;
    let payload: JWTPayload;
    try {
      payload = external
        ? (
            await jwtVerify(token, this.jwks!, {
              issuer: this.config.authIssuer,
              audience: this.config.authAudience,
              requiredClaims: ['exp', 'sub'],
            })
          ).payload
        : (
            await jwtVerify(token, this.secret, {
              issuer: LOCAL_ISSUER,
              audience: LOCAL_ISSUER,
              algorithms: ['HS256'],
            })
          ).payload;
    } catch {
      throw invalidSession();
    }
    const email = typeof payload.email === 'string' ? normalizeEmail(payload.email) : '';
    if (!payload.sub || !email) throw unauthorized('Session token lacks a subject or e-mail');
    return {
      userId: payload.sub,
      email,
      external,
      // A provider's address is proven only when its token says so (it can make an admin, take invitations).
      emailVerified: external ? payload.email_verified === true : payload.email_verified !== false,
      issuedAt: payload.iat ?? 0,
      signedInAtMs: external ? (payload.iat ?? 0) * 1000 : ownSignInMs(payload),
      sessionId: sessionIdOf(token, payload, external),
      expiresAt: (payload.exp ?? 0) * 1000,
    };
  }
}

/**
 * What a log-out revokes: our token's `jti`; a provider's `iss` and `jti`; else the token's
 * signed part (header and claims). Never the whole token text: a signature's last character
 * has spare bits, so one token has several spellings, and each would hash apart.
 */
function sessionIdOf(token: string, payload: JWTPayload, external: boolean): string {
  if (typeof payload.jti === 'string' && payload.jti !== '')
    return external ? `ext-${sha256(`${payload.iss ?? ''}|${payload.jti}`)}` : payload.jti;
  return `jwt-${sha256(token.slice(0, token.lastIndexOf('.')))}`;
}

/** When the person signed in, by one of our JWTs (see `signedInAtMs`). */
function ownSignInMs(payload: JWTPayload): number {
  if (typeof payload.auth_ms === 'number') return payload.auth_ms;
  if (typeof payload.iat_ms === 'number') return payload.iat_ms;
  return (payload.iat ?? 0) * 1000;
}

/** The signing secret kept in DATA_DIR when JWT_SECRET is not configured. */
function loadOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    // Another process sharing DATA_DIR wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw error;
  }
}
