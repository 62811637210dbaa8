import { type Actor, actorOf, type Caller, type Grant } from '../../auth/access.js';
import type { AccessChanges, AccessSource } from '../../auth/access-source.js';
import { mayPerform, type RoomAction } from '../../auth/policies.js';
import { authorizeRoom } from '../../auth/room-access.js';
import { emailNotVerified, emptyUpdate, invalidField, roomLimitReached } from '../../errors.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { WritePath } from '../history/write-path.js';
import type { MembersRepository } from '../members/members.repository.js';
import type { RoomContent } from '../domain/room-content.js';
import {
  cameraSettings,
  presentInfo,
  presentMyRoom,
  presentRoom,
  presentSettings,
  timelineSettings,
} from './rooms.presenter.js';
import type { Updateable } from 'kysely';
import type { RoomRow, RoomsTable } from '../../db/tables.js';
import type { RoomsRepository } from './rooms.repository.js';
import { basemapsOf, checkBasemaps, storedBasemaps } from './room-basemaps.js';
import type {
  BasemapsInput,
  CameraInput,
  CreateRoomInput,
  RoomDetailsInput,
  TimelineSettings,
} from './rooms.schemas.js';

type View = { lat: number; lng: number; zoom: number };

const viewColumns = (view: View | null | undefined) =>
  view === undefined
    ? {}
    : {
        default_view_lat: view?.lat ?? null,
        default_view_lng: view?.lng ?? null,
        default_view_zoom: view?.zoom ?? null,
      };

export interface RoomsServiceParts {
  rooms: RoomsRepository;
  members: MembersRepository;
  content: RoomContent;
  files: StoredFiles;
  writePath: WritePath;
  access: AccessSource & AccessChanges;
  /** Rooms one user may own (MAX_ROOMS_PER_USER); 0: no limit. */
  maxRoomsPerUser: number;
  /**
   * Whether only an account whose address is proven makes rooms (SIGNUP not `open`, or
   * SIGNUP_DOMAINS set: the policy looked at an address nobody had proven yet).
   */
  verifiedToCreate: boolean;
  /** Who hands a room to another member (the members service). */
  owners: RoomOwners;
}

/** Hands a room to one of its members (members.service.ts). */
export interface RoomOwners {
  transferOwnership(roomId: string, toUserId: string, actor: Actor): Promise<{ previousOwner?: string }>;
}

/** Rooms and their settings. Changes of visibility or existence forget cached access at once. */
export class RoomsService {
  private readonly rooms: RoomsRepository;
  private readonly members: MembersRepository;
  private readonly content: RoomContent;
  private readonly files: StoredFiles;
  private readonly writePath: WritePath;
  private readonly access: AccessSource & AccessChanges;
  private readonly maxRoomsPerUser: number;
  private readonly verifiedToCreate: boolean;
  private readonly owners: RoomOwners;

  constructor(parts: RoomsServiceParts) {
    ({
      rooms: this.rooms,
      members: this.members,
      content: this.content,
      files: this.files,
      writePath: this.writePath,
      access: this.access,
      maxRoomsPerUser: this.maxRoomsPerUser,
      verifiedToCreate: this.verifiedToCreate,
      owners: this.owners,
    } = parts);
  }

  /** Creates the room with the caller as owner; on an existing room changes nothing. */
  async create(caller: Extract<Caller, { kind: 'user' }>, roomId: string, input: CreateRoomInput) {
    // A room a clone or import fills is made here first, so these rules cover them too.
    const limited = this.maxRoomsPerUser > 0 || (this.verifiedToCreate && !caller.emailVerified);
    if (limited && !(await this.rooms.find(roomId))) {
      if (this.verifiedToCreate && !caller.emailVerified) throw emailNotVerified();
      if (this.maxRoomsPerUser > 0 && (await this.members.ownedCount(caller.userId)) >= this.maxRoomsPerUser)
        throw roomLimitReached(this.maxRoomsPerUser);
    }
    const created = await this.rooms.createWithOwner({
      id: roomId,
      name: input.name?.trim() || null,
      description: input.description ?? null,
      created_by: caller.userId,
      created_at: Date.now(),
      is_public: input.isPublic ? 1 : 0,
      presentation_is_public: 0,
      auto_zoom_enabled: 1,
      version: 0,
      ...viewColumns(input.defaultView),
      default_theme: input.defaultTheme ?? null,
      default_base_layer: input.defaultBaseLayer ?? null,
    });
    this.access.forgetRoom(roomId);
    // An existing room answers to whoever may read it (decisions: isNewRoom false); 403 otherwise.
    const { room } = await authorizeRoom(this.access, roomId, caller, created ? 'authenticated' : 'read');
    return {
      success: true,
      room: { roomId: room!.id, createdBy: room!.created_by, createdAt: room!.created_at },
      isNewRoom: created,
    };
  }

  async metadata(room: RoomRow, grant: Grant) {
    const counts = { ...(await this.content.counts(room.id)), members: await this.members.count(room.id) };
    const membership = grant.role === 'none' ? {} : { userRole: grant.role, hasAccess: true };
    return { ...presentRoom(room), counts, ...membership };
  }

  /** Display settings to whoever may read the room; others learn only whether its deck is public. */
  info(room: RoomRow, grant: Grant) {
    if (grant.capabilities.has('read')) return presentInfo(room);
    return {
      roomId: room.id,
      requiresAuth: true,
      ...(room.presentation_is_public === 1 && { presentationIsPublic: true }),
    };
  }

  /** Renames the room or changes its description (owner): a `room.updated` like every settings change. */
  async updateDetails(room: RoomRow, caller: Caller, input: RoomDetailsInput) {
    if (Object.keys(input).length === 0) throw emptyUpdate();
    const name = input.name?.trim();
    if (name === '') throw invalidField('body.name', 'must hold a non-blank character');
    const changes = {
      ...(name !== undefined && { name }),
      ...(input.description !== undefined && { description: input.description }),
    };
    const row = await this.changeSettings(room, caller, changes, changes);
    return { success: true, room: { roomId: row.id, name: row.name, description: row.description } };
  }

  async setPublic(room: RoomRow, caller: Caller, isPublic: boolean) {
    await this.changeSettings(room, caller, { is_public: isPublic ? 1 : 0 }, { isPublic });
    return { success: true, isPublic };
  }

  async setPresentationPublic(room: RoomRow, caller: Caller, isPublic: boolean) {
    await this.changeSettings(
      room,
      caller,
      { presentation_is_public: isPublic ? 1 : 0 },
      { presentationIsPublic: isPublic },
    );
    return { success: true, presentationIsPublic: isPublic };
  }

  async updateCamera(room: RoomRow, caller: Caller, input: CameraInput) {
    if (Object.keys(input).length === 0) throw emptyUpdate();
    const row = await this.changeSettings(
      room,
      caller,
      {
        ...(input.autoZoomEnabled !== undefined && { auto_zoom_enabled: input.autoZoomEnabled ? 1 : 0 }),
        ...viewColumns(input.defaultView),
        ...(input.defaultTheme !== undefined && { default_theme: input.defaultTheme }),
        ...(input.defaultBaseLayer !== undefined && { default_base_layer: input.defaultBaseLayer }),
      },
      input,
    );
    return { success: true, settings: cameraSettings(row) };
  }

  async updateTimeline(room: RoomRow, caller: Caller, input: Partial<TimelineSettings>) {
    if (Object.keys(input).length === 0) throw emptyUpdate();
    const settings = { ...timelineSettings(room), ...input };
    await this.changeSettings(
      room,
      caller,
      { timeline_settings: JSON.stringify(settings) },
      { timelineSettings: input },
    );
    return { success: true, settings };
  }

  /**
   * Replaces the room's own base maps (owner): the whole list, an empty one clears it. A
   * `room.updated` like every settings change, `changes: {basemaps}` holding the new list.
   */
  async setBasemaps(room: RoomRow, caller: Caller, input: BasemapsInput) {
    checkBasemaps(input.basemaps);
    const row = await this.changeSettings(
      room,
      caller,
      { basemaps: storedBasemaps(input.basemaps) },
      { basemaps: basemapsOf(storedBasemaps(input.basemaps)) },
    );
    return { success: true, basemaps: basemapsOf(row.basemaps) };
  }

  /**
   * A change of the room's settings, through the write path like content: one `room.updated`
   * history entry and live event carrying what changed (`changes`) and the room's settings
   * after it (`data`: `presentSettings`).
   */
  private async changeSettings(
    room: RoomRow,
    caller: Caller,
    columns: Updateable<RoomsTable>,
    changes: Record<string, unknown>,
  ) {
    const row = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const row = await this.rooms.update(room.id, columns, trx);
      return {
        result: row,
        changes: [{ type: 'room.updated', objectType: 'room', objectId: room.id, changes, data: presentSettings(row) }],
      };
    });
    this.access.forgetRoom(room.id);
    return row;
  }

  /**
   * Hands the room to a member (the caller, its owner, becomes an editor) and answers the room
   * as GET /api/rooms/{roomId} then does to the caller.
   */
  async transferOwnership(room: RoomRow, caller: Caller, toUserId: string) {
    const { previousOwner } = await this.owners.transferOwnership(room.id, toUserId, actorOf(caller));
    const row = (await this.rooms.find(room.id)) ?? room;
    const mine = caller.kind === 'user' && previousOwner === caller.userId;
    return this.metadata(row, { role: mine ? 'editor' : 'owner', capabilities: new Set() });
  }

  permission(grant: Grant, action: RoomAction) {
    return { hasPermission: mayPerform(grant, action), role: grant.role };
  }

  /** Removes all content in one transaction, recorded as one `room.cleared` change. */
  async clear(room: RoomRow, caller: Caller) {
    const removed = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const removed = await this.content.clear(trx, room.id);
      return {
        result: removed,
        changes: [{ type: 'room.cleared', objectType: 'room', objectId: room.id, changes: removed }],
      };
    });
    await this.content.afterClear(room.id);
    return { success: true, removed };
  }

  async delete(room: RoomRow) {
    const keys = await this.files.keysOfRoom(room.id);
    // Content first (a layer's own tables are not reached by the cascade), then the room.
    await this.rooms.delete(room.id, (trx) => this.content.clear(trx, room.id));
    await this.content.afterClear(room.id);
    this.access.forgetRoom(room.id);
    this.access.forgetTokens();
    await this.files.discardRoom(room.id, keys);
    return { success: true };
  }

  async listMine(userId: string) {
    return { rooms: (await this.rooms.listForUser(userId)).map(presentMyRoom) };
  }
}
