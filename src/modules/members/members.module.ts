import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import { UsersRepository } from '../users/users.repository.js';
import { MembersRepository } from './members.repository.js';
import { membersRoutes } from './members.routes.js';
import { MembersService, type MembersServiceParts } from './members.service.js';

/** A room's members and invitations (mailed through `outbox`, with links under `publicUrl`). */
export function membersDomain(core: DomainCore, parts: Pick<MembersServiceParts, 'outbox' | 'publicUrl'>) {
  const { db, access, writePath, files, config } = core;
  const members = new MembersRepository(db);
  const service = new MembersService({
    ...parts,
    members,
    users: new UsersRepository(db),
    access,
    writePath,
    ownerLimits: {
      maxRoomsPerUser: config.maxRoomsPerUser,
      assertRoomFor: (roomId, bytes, db) => files.assertRoomFor(roomId, bytes, db),
    },
  });
  return defineDomain({ name: 'members', routes: [routes(membersRoutes, { members: service })] }, { members, service });
}
