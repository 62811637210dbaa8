import { access, type Caller, type Capability, type Grant } from '../../auth/access.js';
import { emptyUpdate } from '../../errors.js';
import type { StoredFiles } from '../files/stored-files.js';
import { actorOf, type WritePath } from '../history/write-path.js';
import type { MembersRepository } from '../members/members.repository.js';
import type { RoomContent } from './room-content.js';
import { cameraSettings, presentInfo, presentRoom, timelineSettings, type TimelineSettings } from './rooms.presenter.js';
import type { RoomRow, RoomsRepository } from './rooms.repository.js';

type View = { lat: number; lng: number; zoom: number };

export interface CreateRoomInput {
  name?: string;
  description?: string;
  isPublic?: boolean;
  defaultView?: View | null;
  defaultTheme?: string | null;
  defaultBaseLayer?: string | null;
}

export interface CameraInput {
  autoZoomEnabled?: boolean;
  defaultView?: View | null;
  defaultTheme?: string | null;
  defaultBaseLayer?: string | null;
}

/** The capability each `/permissions` action asks for. */
export const PERMISSION_ACTIONS: Record<string, Capability> = {
  view: 'read',
  edit: 'write',
  delete: 'write',
  invite: 'owner',
  manage_members: 'owner',
  delete_room: 'owner',
};

const viewColumns = (view: View | null | undefined) =>
  view === undefined
    ? {}
    : { default_view_lat: view?.lat ?? null, default_view_lng: view?.lng ?? null, default_view_zoom: view?.zoom ?? null };


export class RoomsService {
  constructor(
    private readonly rooms: RoomsRepository,
    private readonly members: MembersRepository,
    private readonly content: RoomContent,
    private readonly files: StoredFiles,
    private readonly writePath: WritePath,
  ) {}

  /** Creates the room with the caller as owner; on an existing room changes nothing. */
  async create(caller: Extract<Caller, { kind: 'user' }>, roomId: string, input: CreateRoomInput) {
    const now = Date.now();
    const created = await this.rooms.createWithOwner({
      id: roomId,
      name: input.name?.trim() || null,
      description: input.description ?? null,
      created_by: caller.userId,
      created_at: now,
      is_public: input.isPublic ? 1 : 0,
      presentation_is_public: 0,
      auto_zoom_enabled: 1,
      version: 0,
      ...viewColumns(input.defaultView),
      default_theme: input.defaultTheme ?? null,
      default_base_layer: input.defaultBaseLayer ?? null,
    });
    const row = (await this.rooms.findWithRole(roomId, caller.userId))!;
    if (!created) {
      access({ isPublic: row.is_public === 1, presentationIsPublic: false, role: row.member_role }, roomId, caller, 'read');
    }
    return {
      success: true,
      room: { roomId: row.id, createdBy: row.created_by, createdAt: row.created_at },
      isNewRoom: created,
    };
  }

  async metadata(room: RoomRow, grant: Grant) {
    const counts = { ...(await this.content.counts(room.id)), members: await this.members.count(room.id) };
    const membership = grant.role === 'none' ? {} : { userRole: grant.role, hasAccess: true };
    return { ...presentRoom(room), counts, ...membership };
  }

  info(room: RoomRow, grant: Grant) {
    return grant.capabilities.has('read') ? presentInfo(room) : { roomId: room.id, requiresAuth: true };
  }

  async setPublic(room: RoomRow, isPublic: boolean) {
    await this.rooms.update(room.id, { is_public: isPublic ? 1 : 0 });
    return { success: true, isPublic };
  }

  async setPresentationPublic(room: RoomRow, isPublic: boolean) {
    await this.rooms.update(room.id, { presentation_is_public: isPublic ? 1 : 0 });
    return { success: true, presentationIsPublic: isPublic };
  }

  async updateCamera(room: RoomRow, input: CameraInput) {
    if (Object.keys(input).length === 0) throw emptyUpdate();
    const row = await this.rooms.update(room.id, {
      ...(input.autoZoomEnabled !== undefined && { auto_zoom_enabled: input.autoZoomEnabled ? 1 : 0 }),
      ...viewColumns(input.defaultView),
      ...(input.defaultTheme !== undefined && { default_theme: input.defaultTheme }),
      ...(input.defaultBaseLayer !== undefined && { default_base_layer: input.defaultBaseLayer }),
    });
    return { success: true, settings: cameraSettings(row) };
  }

  async updateTimeline(room: RoomRow, input: Partial<TimelineSettings>) {
    if (Object.keys(input).length === 0) throw emptyUpdate();
    const settings = { ...timelineSettings(room), ...input };
    await this.rooms.update(room.id, { timeline_settings: JSON.stringify(settings) });
    return { success: true, settings };
  }

  permission(grant: Grant, action: string) {
    return { hasPermission: grant.capabilities.has(PERMISSION_ACTIONS[action]!), role: grant.role };
  }

  /** Removes all content in one transaction, recorded as one `room.cleared` change. */
  async clear(room: RoomRow, caller: Caller) {
    const removed = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const removed = await this.content.clear(trx, room.id);
      return { result: removed, changes: [{ type: 'room.cleared', objectType: 'room', objectId: room.id, changes: removed }] };
    });
    await this.content.afterClear(room.id);
    return { success: true, removed };
  }

  async delete(room: RoomRow) {
    const keys = await this.files.keysOfRoom(room.id);
    await this.rooms.delete(room.id);
    await Promise.all(keys.map((key) => this.files.blobs.delete(key)));
    await this.files.blobs.deletePrefix(`imports/${room.id}`);
    return { success: true };
  }

  async listMine(userId: string) {
    const rows = await this.rooms.listForUser(userId);
    return {
      rooms: rows.map((r) => ({
        roomId: r.id,
        role: r.role,
        name: r.name,
        createdAt: r.created_at,
        isPublic: r.is_public === 1,
      })),
    };
  }
}
