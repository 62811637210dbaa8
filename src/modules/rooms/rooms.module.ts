import { listSetting } from '../../config.js';
import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import type { RoomContent } from '../domain/room-content.js';
import type { MembersRepository } from '../members/members.repository.js';
import { roomExchange } from './rooms.exchange.js';
import { RoomsRepository } from './rooms.repository.js';
import { roomsRoutes } from './rooms.routes.js';
import { RoomsService, type RoomOwners } from './rooms.service.js';

/** Rooms: their settings (the export's `room` table), clearing their `content` and deleting them. */
export function roomsDomain(
  core: DomainCore,
  parts: { members: MembersRepository; owners: RoomOwners; content: RoomContent },
) {
  const { db, config, files, writePath, access } = core;
  const rooms = new RoomsRepository(db);
  const service = new RoomsService({
    ...parts,
    rooms,
    files,
    writePath,
    access,
    maxRoomsPerUser: config.maxRoomsPerUser,
    verifiedToCreate: config.signup !== 'open' || listSetting(config.signupDomains).length > 0,
  });
  return defineDomain(
    { name: 'rooms', routes: [routes(roomsRoutes, { rooms: service })], exchanges: [roomExchange(rooms)] },
    {
      rooms,
      service,
      /** Deletes a room entirely, for an account deleted with its rooms. */
      deleteRoom: async (roomId: string) => {
        const room = await rooms.find(roomId);
        if (room) await service.delete(room);
      },
    },
  );
}
