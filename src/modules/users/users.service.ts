import { DUMMY_HASH_PROMISE, hashPassword, verifyPassword } from '../../auth/passwords.js';
import type { SessionKeys } from '../../auth/sessions.js';
import { isUniqueViolation } from '../../db/database.js';
import { AppError, conflict, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { MembersRepository } from '../members/members.repository.js';
import type { UserRow, UsersRepository } from './users.repository.js';

export const presentUser = (user: UserRow) => ({ id: user.id, email: user.email, name: user.name });

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly members: MembersRepository,
    private readonly sessions: SessionKeys,
  ) {}

  async signup(input: { email: string; password: string; name?: string }) {
    const now = Date.now();
    const user: UserRow = {
      id: newId('user'),
      email: normalizeEmail(input.email),
      name: input.name?.trim() || null,
      password_hash: await hashPassword(input.password),
      created_at: now,
    };
    try {
      await this.users.insert(user);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('email_taken', 'An account with this e-mail already exists');
      throw error;
    }
    return this.signIn(user);
  }

  async login(input: { email: string; password: string }) {
    const user = await this.users.findByEmail(normalizeEmail(input.email));
    const valid = user?.password_hash
      ? await verifyPassword(input.password, user.password_hash)
      : (await verifyPassword(input.password, await DUMMY_HASH_PROMISE), false);
    if (!user || !valid) throw new AppError(401, 'invalid_credentials', 'E-mail or password is wrong');
    return this.signIn(user);
  }

  async me(userId: string) {
    const user = await this.users.findById(userId);
    if (!user) throw notFound('User');
    return { user: presentUser(user) };
  }

  /** Issues a session and accepts the invitations waiting for this e-mail. */
  private async signIn(user: UserRow) {
    await this.members.acceptInvitations(user.id, user.email, Date.now());
    return { token: await this.sessions.issue(user), user: presentUser(user) };
  }
}
