// `.js`: room/room-state.ts is also type-checked under NodeNext (test/web/room-model.test.ts).
import type { components, paths } from './schema.js';

type Json<Op> = Op extends { responses: infer R }
  ? R extends { 200: infer A } | { 201: infer A }
    ? A extends { content: { 'application/json': infer J } }
      ? J
      : never
    : never
  : never;
type Get<P extends keyof paths> = paths[P] extends { get: infer Op } ? Json<Op> : never;
/** The JSON body a path's method takes. */
export type BodyOf<P extends keyof paths, M extends 'post' | 'put' | 'patch'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type Room = Get<'/api/rooms/{roomId}'>;
export type RoomInfo = Get<'/api/rooms/{roomId}/info'>;
export type RoomSummary = Get<'/api/rooms'>['rooms'][number];
export type Marker = Get<'/api/rooms/{roomId}/markers'>['markers'][number];
export type MarkerFeed = Get<'/api/rooms/{roomId}/markers/feed'>;
export type MarkerInput = NonNullable<
  paths['/api/rooms/{roomId}/markers']['post']['requestBody']
>['content']['application/json'];
export type Icon = Get<'/api/rooms/{roomId}/marker-icons'>['icons'][number];
/** A vector layer; `editedAt`, in the page only: the room version of the last edit of its features it heard of (its tiles' address changes with it). */
export type Layer = Get<'/api/layers/{roomName}'>['layers'][number] & { editedAt?: number };
export type RasterLayer = Get<'/api/rooms/{roomId}/raster-layers'>['rasterLayers'][number];
export type RasterDisplay = RasterLayer['display'];
export type Colormap = Get<'/api/colormaps'>['colormaps'][number];
export type Drawing = Get<'/api/rooms/{roomId}/drawings'>['drawings'][number];
export type DrawingStyle = NonNullable<Drawing['style']>;
export type Slide = Get<'/api/rooms/{roomId}/presentation/slides'>['slides'][number];
export type Deck = Get<'/api/rooms/{roomId}/presentation'>;
export type Comment = Get<'/api/rooms/{roomId}/comments'>['comments'][number];
export type HistoryEvent = Get<'/api/rooms/{roomId}/history'>['events'][number];
export type Member = Get<'/api/rooms/{roomId}/members'>[number];
export type Invitation = Get<'/api/rooms/{roomId}/pending-invitations'>['invitations'][number];
export type MyInvitation = Get<'/api/users/pending-invitations'>['invitations'][number];
export type RoomToken = Get<'/api/rooms/{roomId}/api-tokens'>['tokens'][number];
export type EmbedKey = Get<'/api/rooms/{roomId}/embed-keys'>['keys'][number];
export type Job = Get<'/api/layers/jobs/{jobId}'>;
/** The signed-in user; `admin` and `locale` are known once `/api/auth/me` was read (refreshUser). */
export type User = Omit<Get<'/api/auth/me'>['user'], 'admin' | 'locale'> &
  Partial<Pick<Get<'/api/auth/me'>['user'], 'admin' | 'locale'>>;
export type AdminUser = Get<'/api/admin/users'>['users'][number];
export type AdminRoom = Get<'/api/admin/rooms'>['rooms'][number];
export type AdminJob = Get<'/api/admin/jobs'>['jobs'][number];
export type AuditEntry = Get<'/api/admin/audit'>['entries'][number];
export type Limits = Get<'/api/admin/limits'>;
export type BaseLayerId = NonNullable<Slide['baseLayer']>;
/** A message of the room's live channel, told apart by `type` (the service's LiveEvent schema). */
export type LiveEvent = components['schemas']['LiveEvent'];
/** A change of room content among them (not `hello`, `resync` or `error`). */
export type LiveChange = Extract<LiveEvent, { objectType: string }>;
export type SearchResults = Get<'/api/rooms/{roomId}/search'>;
export type SearchResult = SearchResults['results'][number];
/** A layer the search read only within its window (its first ATTRIBUTES_SCAN_ROWS features). */
export type PartialLayer = SearchResults['partialLayers'][number];
export type Place = Get<'/api/geocode'>['results'][number];
/** How one may sign in: local accounts, the sign-up policy, the identity providers. */
export type SignInOptions = Get<'/api/auth/providers'>;
