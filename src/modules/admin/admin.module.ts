import type { InstanceAdmins } from '../../auth/admins.js';
import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import type { MembersService } from '../members/members.service.js';
import type { RoomsRepository } from '../rooms/rooms.repository.js';
import type { RoomsService } from '../rooms/rooms.service.js';
import type { PasswordReset } from '../users/password-reset.service.js';
import type { UsersRepository } from '../users/users.repository.js';
import type { UsersService } from '../users/users.service.js';
import { AdminListsRepository } from './admin-lists.repository.js';
import { adminRoutes } from './admin.routes.js';
import { AdminService } from './admin.service.js';
import { AuditRepository } from './audit.repository.js';

export interface AdminDomainParts {
  admins: InstanceAdmins;
  users: UsersRepository;
  accounts: UsersService;
  passwordReset: PasswordReset;
  members: MembersService;
  rooms: RoomsRepository;
  roomsService: RoomsService;
}

/** The instance admin: users, rooms, jobs, limits and the audit list. */
export function adminDomain({ db, jobs, config }: DomainCore, parts: AdminDomainParts) {
  const { admins, users, accounts, passwordReset, members, rooms, roomsService } = parts;
  const admin = new AdminService({
    accounts: {
      setDisabled: (userId, disabled) => accounts.setDisabled(userId, disabled),
      deleteAccount: (userId, options) => accounts.deleteAccount(userId, options),
      findUser: (userId) => users.findById(userId),
      isAdmin: (user) => admins.isAdmin(user),
      sendReset: (user) => passwordReset.sendTo(user),
      transferOwnership: (roomId, toUserId, actor) => members.transferOwnership(roomId, toUserId, actor),
    },
    lists: new AdminListsRepository(db),
    audit: new AuditRepository(db),
    jobs,
    rooms: { find: (id) => rooms.find(id), delete: (room) => roomsService.delete(room) },
    limits: { maxRoomsPerUser: config.maxRoomsPerUser, storageQuotaBytes: config.storageQuotaBytes },
  });
  return defineDomain({ name: 'admin', routes: [routes(adminRoutes, { admin })] });
}
