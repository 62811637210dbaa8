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
}

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

export interface Tables {
  users: UsersTable;
  rooms: RoomsTable;
  room_members: RoomMembersTable;
  pending_invitations: PendingInvitationsTable;
  api_tokens: ApiTokensTable;
}
