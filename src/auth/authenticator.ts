import { invalidApiToken, unauthorized } from '../errors.js';
import { isUniqueViolation } from '../db/database.js';
import type { MembersRepository } from '../modules/members/members.repository.js';
import type { TokensRepository } from '../modules/tokens/tokens.repository.js';
import type { UsersRepository } from '../modules/users/users.repository.js';
import type { Caller } from './access.js';
import { hashRoomToken, isRoomToken, type TokenPermission } from './room-tokens.js';
import type { SessionKeys } from './sessions.js';

/** `lastUsedAt` is written at most once a minute per token, to keep reads cheap. */
const LAST_USED_PRECISION_MS = 60_000;
const SEEN_EXTERNAL_LIMIT = 10_000;

/** Turns an Authorization header into a caller, or throws 401. */
export class Authenticator {
  /** External session tokens already handled (`sub:iat`): their user exists, invitations are accepted. */
  private readonly seenExternal = new Set<string>();

  constructor(
    private readonly sessions: SessionKeys,
    private readonly users: UsersRepository,
    private readonly tokens: TokensRepository,
    private readonly members: MembersRepository,
  ) {}

  async resolve(header: string | undefined): Promise<Caller> {
    if (header === undefined || header === '') return { kind: 'anonymous' };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized('The Authorization header must be "Bearer <token>"');
    const bearer = match[1]!;
    return isRoomToken(bearer) ? this.roomToken(bearer) : this.session(bearer);
  }

  private async roomToken(secret: string): Promise<Caller> {
    const row = await this.tokens.findByHash(hashRoomToken(secret));
    const now = Date.now();
    if (!row || row.expires_at <= now) throw invalidApiToken();
    if (row.last_used_at === null || now - row.last_used_at >= LAST_USED_PRECISION_MS) {
      await this.tokens.touch(row.id, now);
      row.last_used_at = now; // the cached row too
    }
    return {
      kind: 'token',
      tokenId: row.id,
      roomId: row.room_id,
      permissions: row.permissions.split(',') as TokenPermission[],
    };
  }

  private async session(jwt: string): Promise<Caller> {
    const claims = await this.sessions.verify(jwt);
    if (claims.external) {
      await this.firstSeenExternal(claims.userId, claims.email, claims.issuedAt, claims.emailVerified);
    } else if (!(await this.users.findById(claims.userId))) {
      throw unauthorized('Invalid or expired session token');
    }
    return { kind: 'user', userId: claims.userId, email: claims.email };
  }

  /** "Signs in next time" for external identities: the first request of each token. */
  private async firstSeenExternal(userId: string, email: string, issuedAt: number, emailVerified: boolean) {
    const key = `${userId}:${issuedAt}`;
    if (this.seenExternal.has(key)) return;
    const now = Date.now();
    // An external subject never stands for an account of the service's own.
    const existing = await this.users.findById(userId);
    if (existing?.password_hash) throw unauthorized('Invalid or expired session token');
    try {
      await this.users.ensureExternal(userId, email, now);
    } catch (error) {
      if (isUniqueViolation(error)) throw unauthorized('This e-mail address belongs to another account');
      throw error;
    }
    if (emailVerified) await this.members.acceptInvitations(userId, email, now);
    if (this.seenExternal.size >= SEEN_EXTERNAL_LIMIT) this.seenExternal.clear();
    this.seenExternal.add(key);
  }
}
