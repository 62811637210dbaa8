import { assertOk, call, createRoomWithMembers, type TestApp, type Users } from '../helpers.js';

/** What the rooms-*.test.ts files share: a room's settings fields, the permission actions and their calls. */

/** The settings fields the interface lists for `GET /info`. */
export const INFO_FIELDS = [
  'isPublic',
  'presentationIsPublic',
  'autoZoomEnabled',
  'defaultViewLat',
  'defaultViewLng',
  'defaultViewZoom',
  'defaultTheme',
  'defaultBaseLayer',
] as const;

/** The display settings of a new room, and of one whose defaults were all cleared. */
export const NEW_ROOM_INFO = {
  isPublic: false,
  presentationIsPublic: false,
  autoZoomEnabled: true,
  defaultViewLat: null,
  defaultViewLng: null,
  defaultViewZoom: null,
  defaultTheme: null,
  defaultBaseLayer: null,
};

export const ACTIONS = ['view', 'edit', 'delete', 'invite', 'manage_members', 'delete_room'] as const;
export type Action = (typeof ACTIONS)[number];

export const ZERO_CONTENT = { markers: 0, layers: 0, rasterLayers: 0, drawings: 0, comments: 0, slides: 0 };

export function pick(body: Record<string, unknown>, keys: readonly string[]) {
  return Object.fromEntries(keys.map((k) => [k, body[k]]));
}

/** What `/permissions` answers for every action, to a caller with `role` allowed `allowed`. */
export function matrix(role: string, allowed: Action[]) {
  return Object.fromEntries(ACTIONS.map((a) => [a, { hasPermission: allowed.includes(a), role }]));
}

/**
 * The room calls of a test file, bound to its world (read at each call, so the file can
 * create them at load time and set the world in `before`).
 */
export function roomCalls(world: () => { t: TestApp; users: Pick<Users, 'owner' | 'editor' | 'viewer'> }) {
  const app = () => world().t.app;
  return {
    /** A new private room of `owner` with `editor` and `viewer` as members. */
    roomWithMembers: (body: object = {}) => createRoomWithMembers(app(), world().users, body),
    info: async (roomId: string, auth?: string) =>
      assertOk(await call(app(), 'GET', `/api/rooms/${roomId}/info`, { auth })),
    metadata: async (roomId: string, auth?: string) =>
      assertOk(await call(app(), 'GET', `/api/rooms/${roomId}`, { auth })),
    /** `/permissions` for every action. */
    async permissions(roomId: string, auth: string) {
      const result: Record<string, { hasPermission: boolean; role: string }> = {};
      for (const action of ACTIONS) {
        result[action] = assertOk(
          await call(app(), 'GET', `/api/rooms/${roomId}/permissions?action=${action}`, { auth }),
        );
      }
      return result;
    },
  };
}
