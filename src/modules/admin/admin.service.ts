import type { Actor } from '../../auth/access.js';
import type { RoomRow, UsersTable } from '../../db/tables.js';
import { invalidField, jobEnded, jobNotFailed, notFound, adminAccount, ownAccount } from '../../errors.js';
import { newId } from '../../ids.js';
import type { JobQueue } from '../../infra/job-queue.js';
import type { AdminListsRepository, PageStart } from './admin-lists.repository.js';
import {
  cursorOf,
  presentAdminJob,
  presentAdminRoom,
  presentAdminUser,
  presentAuditEntry,
  STAGE_OF_STATE,
} from './admin.presenter.js';
import type { AuditAction, AuditInput, JobStateName, ListInput } from './admin.schemas.js';
import type { AuditRepository } from './audit.repository.js';

/** Jobs listed per state at most (newest first): fixed, the admin page shows one screenful per state. */
export const JOBS_PER_STATE = 200;
/** A page of the admin's lists when the request names no limit: fixed, a page's answer, not a capacity. */
export const DEFAULT_PAGE = 50;

/** The limits an admin sees with their use. */
export interface UserLimits {
  maxRoomsPerUser: number;
  storageQuotaBytes: number;
}

/** What the accounts and members services do for the admin (users.service.ts, password-reset.service.ts, members.service.ts). */
export interface AccountActions {
  setDisabled(userId: string, disabled: boolean): Promise<unknown>;
  deleteAccount(userId: string, options: { ownedRooms: 'refuse' | 'delete' }): Promise<void>;
  findUser(userId: string): Promise<UsersTable | undefined>;
  /** Whether the account is an instance admin (ADMIN_EMAILS, or its provider's admin claim). */
  isAdmin(user: UsersTable): boolean;
  /** Mails the account a password reset link. */
  sendReset(user: UsersTable): Promise<unknown>;
  transferOwnership(roomId: string, toUserId: string, actor: Actor): Promise<unknown>;
}

export interface AdminServiceParts {
  accounts: AccountActions;
  lists: AdminListsRepository;
  audit: AuditRepository;
  jobs: JobQueue;
  rooms: { find(id: string): Promise<RoomRow | undefined>; delete(room: RoomRow): Promise<unknown> };
  limits: UserLimits;
}

/**
 * What the instance admin sees and does across the whole instance: users, rooms, jobs and the
 * limits, and the audit list every action is written to once it succeeded.
 */
export class AdminService {
  private readonly parts: AdminServiceParts;

  constructor(parts: AdminServiceParts) {
    this.parts = parts;
  }

  async users({ q, limit = DEFAULT_PAGE, after }: ListInput) {
    const rows = await this.parts.lists.users(q, pageStart(after), limit + 1);
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    return {
      users: shown.map(presentAdminUser),
      next: rows.length > limit && last ? cursorOf([Number(last.created_at), last.id]) : null,
    };
  }

  /** The account as the list shows it (the answer of disable and enable). */
  async user(userId: string) {
    const row = await this.parts.lists.user(userId);
    if (!row) throw notFound('User');
    return presentAdminUser(row);
  }

  /** Disables (or enables) the account: its sessions and the room tokens it created stop on every instance. */
  async setDisabled(adminId: string, userId: string, disabled: boolean) {
    if (userId === adminId && disabled) throw ownAccount();
    if (disabled) await this.refuseAdmin(userId);
    await this.parts.accounts.setDisabled(userId, disabled);
    await this.record(adminId, disabled ? 'user.disable' : 'user.enable', userId);
    return this.user(userId);
  }

  /** Deletes the account; rooms it owns are refused (409 owns_rooms) unless `deleteRooms`. */
  async deleteUser(adminId: string, userId: string, deleteRooms: boolean) {
    if (userId === adminId) throw ownAccount();
    await this.refuseAdmin(userId);
    const rooms = await this.parts.lists.roomsOwnedBy(userId);
    await this.parts.accounts.deleteAccount(userId, { ownedRooms: deleteRooms ? 'delete' : 'refuse' });
    await this.record(adminId, 'user.delete', userId, { roomsDeleted: rooms });
  }

  /**
   * Another admin is neither disabled nor deleted here (409 admin_account): one admin could
   * otherwise shut out every other, and an admin named by ADMIN_EMAILS could not be restored
   * without editing the database. They stop being admin where they were made one first.
   */
  private async refuseAdmin(userId: string) {
    const user = await this.parts.accounts.findUser(userId);
    if (user && user.deleted_at === null && this.parts.accounts.isAdmin(user)) throw adminAccount();
  }

  /** Mails the account a password reset link (as if its owner had asked). */
  async sendPasswordReset(adminId: string, userId: string) {
    const user = await this.parts.accounts.findUser(userId);
    if (!user || user.deleted_at !== null) throw notFound('User');
    await this.parts.accounts.sendReset(user);
    await this.record(adminId, 'user.password-reset', userId);
    return {};
  }

  /** Hands the room to one of its members (the old owner becomes editor), in its history as the admin's change. */
  async transferRoom(adminId: string, roomId: string, toUserId: string) {
    await this.room(roomId);
    await this.parts.accounts.transferOwnership(roomId, toUserId, { kind: 'user', id: adminId });
    await this.record(adminId, 'room.transfer', roomId, { to: toUserId });
    const row = await this.parts.lists.room(roomId);
    if (!row) throw notFound('Room');
    return presentAdminRoom(row);
  }

  async rooms({ q, limit = DEFAULT_PAGE, after }: ListInput) {
    const rows = await this.parts.lists.rooms(q, pageStart(after), limit + 1);
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    return {
      rooms: shown.map(presentAdminRoom),
      next: rows.length > limit && last ? cursorOf([Number(last.created_at), last.id]) : null,
    };
  }

  /** A room's row, or 404. */
  async room(roomId: string): Promise<RoomRow> {
    const room = await this.parts.rooms.find(roomId);
    if (!room) throw notFound('Room');
    return room;
  }

  async deleteRoom(adminId: string, roomId: string) {
    await this.parts.rooms.delete(await this.room(roomId));
    await this.record(adminId, 'room.delete', roomId);
  }

  /** Waiting, running and failed jobs of every kind (or those of one state), newest first. */
  async jobs(state: JobStateName | undefined) {
    const states = state ? [state] : (['waiting', 'running', 'failed'] as const);
    const rows = (await Promise.all(states.map((s) => this.parts.jobs.list(STAGE_OF_STATE[s], JOBS_PER_STATE)))).flat();
    rows.sort((a, b) => Number(b.created_at) - Number(a.created_at) || (a.id < b.id ? 1 : -1));
    return { jobs: rows.map(presentAdminJob) };
  }

  async retryJob(adminId: string, jobId: string) {
    await this.job(jobId);
    if (!(await this.parts.jobs.retry(jobId))) throw jobNotFailed();
    await this.record(adminId, 'job.retry', jobId);
    return presentAdminJob(await this.job(jobId));
  }

  async cancelJob(adminId: string, jobId: string) {
    await this.job(jobId);
    if (!(await this.parts.jobs.cancel(jobId))) throw jobEnded();
    await this.record(adminId, 'job.cancel', jobId);
    return presentAdminJob(await this.job(jobId));
  }

  async audit({ limit = DEFAULT_PAGE, after }: AuditInput) {
    const start = pageStart(after);
    const rows = await this.parts.audit.list(start && { at: start.createdAt, id: start.id }, limit + 1);
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    return {
      entries: shown.map(presentAuditEntry),
      next: rows.length > limit && last ? cursorOf([Number(last.at), last.id]) : null,
    };
  }

  async limits() {
    const use = await this.parts.lists.largestUse();
    return { ...this.parts.limits, mostRoomsOwned: use.roomsOwned, mostStorageBytes: use.storageBytes };
  }

  /** Writes the action to the audit list (after it succeeded). */
  async record(adminId: string, action: AuditAction, target: string, details?: unknown): Promise<void> {
    await this.parts.audit.insert({
      id: newId('audit'),
      at: Date.now(),
      admin_id: adminId,
      action,
      target,
      details: details === undefined ? null : JSON.stringify(details),
    });
  }

  private async job(jobId: string) {
    const row = await this.parts.jobs.find(jobId);
    if (!row) throw notFound('Job');
    return row;
  }
}

/** The page start an `after` cursor names; a cursor this list did not make is refused. */
function pageStart(after: string | undefined): PageStart | undefined {
  if (after === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(after, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    !Number.isSafeInteger(parsed[0]) ||
    typeof parsed[1] !== 'string'
  )
    throw invalidField('querystring.after', "is not a cursor of this list: pass the previous page's next as it was");
  return { createdAt: parsed[0], id: parsed[1] };
}
