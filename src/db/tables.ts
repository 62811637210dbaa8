/**
 * Table types for Kysely. Booleans are stored as 0/1 integers and times as epoch
 * milliseconds (bigint) so that SQLite and PostgreSQL rows read back identically.
 */
export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  created_at: number;
  /** When the address was proven (a followed e-mail link, or an external provider's word). */
  email_verified_at: number | null;
  /** When an admin disabled the account (null: enabled): sign-in, its sessions and its tokens are refused. */
  disabled_at: number | null;
  /** When the account was deleted: the row stays, without e-mail or password, to name its past work. */
  deleted_at: number | null;
  /** Session JWTs issued before this moment (ms) are refused: a password reset or change, a deletion. */
  sessions_not_before: number | null;
  /** 1 when the identity provider's claim named the user an instance admin at the last sign-in. */
  provider_admin: number;
  /** The last request of one of the user's sessions (written at most once a minute). */
  last_seen_at: number | null;
  /** The session id that `sessions_not_before` spares: the one that changed the password. */
  sessions_kept: string | null;
  /** The language of the user's e-mails (`en`, `de`, `fr`, `it`, `es`, `ar`); null: English (migration 0018). */
  locale: string | null;
}

/** A password-reset link (its secret's hash); requests for addresses without an account have no user. */
export interface PasswordResetsTable {
  token_hash: string;
  /** SHA-256 of the normalised address asked for: what the per-address limit counts. */
  email_hash: string;
  user_id: string | null;
  created_at: number;
  expires_at: number;
}

/** A session ended by logging out, kept until its JWT would have expired. */
/** An account's identity at an OpenID Connect provider (migration 0015). */
export interface UserIdentitiesTable {
  provider_id: string;
  subject: string;
  user_id: string;
  created_at: number;
}

/** A sign-in through a provider under way: hashes of its state and of the browser's cookie (migration 0015). */
export interface OidcFlowsTable {
  state_hash: string;
  browser_hash: string;
  provider_id: string;
  return_to: string;
  expires_at: number;
}

/** A finished sign-in waiting for its browser (by the hash of the browser's hand-over cookie). */
export interface OidcHandoversTable {
  secret_hash: string;
  user_id: string;
  expires_at: number;
}

export interface RevokedSessionsTable {
  session_id: string;
  expires_at: number;
}

export interface EmailVerificationsTable {
  token_hash: string;
  user_id: string;
  email: string;
  created_at: number;
  expires_at: number;
  /** `verify`: proves the account's address; `change`: moves the account to `email` once followed. */
  purpose: 'verify' | 'change';
}

export interface StagedJobsTable {
  job_id: string;
  room_id: string;
  created_at: number;
  /** The instance that staged it (db/database-lock.ts); null for rows of earlier versions. */
  instance: number | null;
}

export interface RoomsTable {
  id: string;
  name: string | null;
  description: string | null;
  created_by: string;
  created_at: number;
  is_public: number;
  presentation_is_public: number;
  auto_zoom_enabled: number;
  default_view_lat: number | null;
  default_view_lng: number | null;
  default_view_zoom: number | null;
  default_theme: string | null;
  default_base_layer: string | null;
  timeline_settings: string | null;
  /** The room's own base maps (JSON, rooms.schemas.ts RoomBasemap[]); null: none. */
  basemaps: string | null;
  version: number;
}

export type RoomRow = RoomsTable;

export interface RoomMembersTable {
  room_id: string;
  user_id: string;
  role: string;
  added_at: number;
  added_by: string | null;
}

export interface PendingInvitationsTable {
  room_id: string;
  email: string;
  role: string;
  invited_at: number;
  invited_by: string;
}

export interface ApiTokensTable {
  id: string;
  room_id: string;
  name: string;
  token_hash: string;
  permissions: string;
  created_by: string;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
}

/** A room's embed key (migration 0020): reads the room like a viewer, for pages that embed it; only its hash is kept. */
export interface EmbedKeysTable {
  id: string;
  room_id: string;
  name: string;
  key_hash: string;
  /** The vector and raster layer ids it may read, a JSON array; null: every layer. */
  layers: string | null;
  created_by: string;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
}

/** Which sites may frame a room's `/e/` pages (migration 0020); no row or null origins: the default. */
export interface RoomEmbeddingTable {
  room_id: string;
  /** A JSON array of origins, or `["*"]`; null: the default (any site for public content, none otherwise). */
  origins: string | null;
}

export interface WebhooksTable {
  id: string;
  room_id: string;
  url: string;
  /** The change types it receives, comma-separated; null: every type. */
  events: string | null;
  /** `whsec_` and base64: kept as given, since signing needs it; never listed or logged. */
  secret: string;
  enabled: number;
  disabled_reason: string | null;
  created_by: string;
  created_at: number;
  lease_owner: string | null;
  lease_until: number | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  hook_id: string;
  /** The order of sending: the room's version of the change. */
  seq: number;
  event_type: string;
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt: number;
  next_attempt_at: number;
  at: number | null;
  response_status: number | null;
  response_excerpt: string | null;
  created_at: number;
}

export interface MarkersTable {
  id: string;
  room_id: string;
  latitude: number;
  longitude: number;
  title: string | null;
  description: string | null;
  color: string | null;
  /** JSON array of strings. */
  tags: string | null;
  event_date: number | null;
  marker_icon_id: string | null;
  marker_icon_size: number | null;
  image_key: string | null;
  thumbnail_key: string | null;
  /** JSON: the photo's provenance, read-only `imageMeta`. */
  image_meta: string | null;
  embedded_media_url: string | null;
  media_size: string | null;
  created_by: string;
  created_at: number;
  updated_at: number;
  /** The bulk import that created the marker, so an interrupted import can be undone. */
  import_job_id: string | null;
}

export interface HistoryTable {
  id: string;
  room_id: string;
  version: number;
  type: string;
  object_type: string;
  object_id: string;
  actor_kind: string;
  actor_id: string;
  at: number;
  /** JSON: the fields a change set. */
  changes: string | null;
  /** JSON: the object after the change, replayed to live clients that catch up. */
  data: string | null;
}

export interface JobsTable {
  id: string;
  room_id: string;
  kind: string;
  stage: string;
  progress: number;
  message: string | null;
  payload: string;
  result: string | null;
  actor_kind: string;
  actor_id: string;
  attempts: number;
  created_at: number;
  updated_at: number;
  /** When its latest attempt began; null while it waits for its first. */
  started_at: number | null;
  /** When it ended in complete or error. */
  finished_at: number | null;
  /** A file the job made in the blob store (an export's GeoPackage), until a sweep removes it. */
  artifact_key: string | null;
  /** The id of the request that queued it (its log lines carry it); null when none did. */
  request_id: string | null;
}

export interface StoredFilesTable {
  key: string;
  room_id: string;
  kind: string;
  bytes: number;
  content_type: string;
  meta: string | null;
  created_at: number;
}

export interface MarkerIconsTable {
  id: string;
  room_id: string;
  name: string;
  size: number;
  file_key: string;
  content_type: string;
  created_by: string;
  created_at: number;
}

export interface CommentsTable {
  id: string;
  room_id: string;
  object_id: string;
  object_type: string;
  object_name: string | null;
  body: string;
  lat: number | null;
  lng: number | null;
  resolved: number;
  author_kind: string;
  author_id: string;
  created_at: number;
  updated_at: number;
}

export interface CommentRepliesTable {
  id: string;
  comment_id: string;
  room_id: string;
  body: string;
  author_kind: string;
  author_id: string;
  created_at: number;
}

export interface DrawingsTable {
  id: string;
  room_id: string;
  /** JSON: a GeoJSON Point, LineString or Polygon. */
  geometry: string;
  label: string | null;
  /** JSON: {color, fillColor, opacity, strokeWeight}. */
  style: string | null;
  created_by: string;
  created_at: number;
  updated_at: number;
}

export interface SlidesTable {
  id: string;
  room_id: string;
  position: number;
  title: string;
  body: string | null;
  /** JSON: {lat, lng, zoom, bearing?, pitch?}. */
  view: string;
  base_layer: string | null;
  /** JSON arrays of ids. */
  marker_ids: string;
  layer_ids: string;
  raster_layer_ids: string;
  drawing_ids: string;
  created_by: string;
  created_at: number;
  updated_at: number;
}

/** The kinds of object a slide shows, one per id list of the slide. */
export type SlideObjectType = 'marker' | 'layer' | 'raster' | 'drawing';

/**
 * One object a slide shows, derived from the slide's id lists in the same write. The access
 * check reads these rows ("does the published deck show this?"), never the lists.
 */
export interface SlideObjectsTable {
  room_id: string;
  slide_id: string;
  object_type: SlideObjectType;
  object_id: string;
}

/** A vector layer's former tables, dropped once no read can still use them. */
export interface RetiredFeatureTablesTable {
  storage_key: number;
  retired_at: number;
}

export interface LayersTable {
  id: string;
  room_id: string;
  kind: 'vector' | 'raster';
  /** Names a vector layer's feature tables; null for rasters. */
  storage_key: number | null;
  name: string;
  description: string | null;
  /** JSON: a vector layer's style. */
  style: string | null;
  /** JSON: a raster's display settings. */
  display: string | null;
  geometry_type: string | null;
  feature_count: number;
  /** The highest row of a vector layer's features table (rows deleted since leave gaps below it). */
  last_row: number;
  /** JSON: [minLon, minLat, maxLon, maxLat]. */
  bbox: string | null;
  source_format: string;
  source_crs: string | null;
  size_bytes: number;
  /** JSON: a raster's facts (size, bands, data type, statistics, nodata, tile grid). */
  raster: string | null;
  /** A raster's tileable file in the blob store. */
  file_key: string | null;
  /** The ingest that wrote it; hidden while that job is staged. */
  job_id: string | null;
  /** JSON: a vector layer's attribute fields `[{name, type}]` (geo/feature-fields.ts); null for rasters. */
  fields: string | null;
  /** A remote layer's address (null: a layer from a file or made in the room). */
  source_url: string | null;
  /** How often a remote layer is fetched again, in minutes (null: only when asked). */
  refresh_minutes: number | null;
  /** When a remote layer's source was last read with success. */
  last_refresh_at: number | null;
  /** When its source was last tried, with success or not (the schedule counts from it). */
  last_attempt_at: number | null;
  /** Why the last try failed (null: it did not). */
  last_error: string | null;
  /** The last refresh job queued: another is not queued while it waits or runs. */
  refresh_job_id: string | null;
  created_by: string;
  created_at: number;
  updated_at: number;
}

export interface LayerChunksTable {
  layer_id: string;
  chunk_index: number;
  first_row: number;
  last_row: number;
  feature_count: number;
  min_lon: number;
  min_lat: number;
  max_lon: number;
  max_lat: number;
}

/** The version of a feature edited since its ingest (migration 0022); one not listed is at version 1. */
export interface FeatureVersionsTable {
  layer_id: string;
  feature_id: number;
  version: number;
  updated_at: number;
}

/** One instance admin's action (migration 0016). */
export interface AdminAuditTable {
  id: string;
  /** When (ms). */
  at: number;
  admin_id: string;
  /** `user.disable`, `user.enable`, `user.delete`, `user.password-reset`, `room.transfer`, `room.delete`, `job.retry`, `job.cancel`. */
  action: string;
  /** The id of the user, room or job acted on. */
  target: string;
  /** JSON with what else the action named (a room's new owner, the rooms deleted with a user). */
  details: string | null;
}

export interface UploadChunksTable {
  room_id: string;
  upload_id: string;
  chunk_index: number;
  total_chunks: number;
  file_name: string;
  file_key: string;
  bytes: number;
  created_at: number;
}

export interface Tables {
  users: UsersTable;
  email_verifications: EmailVerificationsTable;
  password_resets: PasswordResetsTable;
  revoked_sessions: RevokedSessionsTable;
  user_identities: UserIdentitiesTable;
  oidc_flows: OidcFlowsTable;
  oidc_handovers: OidcHandoversTable;
  staged_jobs: StagedJobsTable;
  rooms: RoomsTable;
  room_members: RoomMembersTable;
  pending_invitations: PendingInvitationsTable;
  api_tokens: ApiTokensTable;
  markers: MarkersTable;
  history: HistoryTable;
  jobs: JobsTable;
  stored_files: StoredFilesTable;
  marker_icons: MarkerIconsTable;
  comments: CommentsTable;
  comment_replies: CommentRepliesTable;
  drawings: DrawingsTable;
  slides: SlidesTable;
  slide_objects: SlideObjectsTable;
  layers: LayersTable;
  retired_feature_tables: RetiredFeatureTablesTable;
  layer_chunks: LayerChunksTable;
  feature_versions: FeatureVersionsTable;
  upload_chunks: UploadChunksTable;
  admin_audit: AdminAuditTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  embed_keys: EmbedKeysTable;
  room_embedding: RoomEmbeddingTable;
}
