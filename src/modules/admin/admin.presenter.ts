import type { JobRow } from '../../infra/job-queue.js';
import type { AuditAction, JobStateName } from './admin.schemas.js';
import type { AuditRow } from './audit.repository.js';

/** The job stages an admin sees, by their names in the API. */
export const STAGE_OF_STATE: Record<JobStateName, 'queued' | 'processing' | 'error'> = {
  waiting: 'queued',
  running: 'processing',
  failed: 'error',
};
const STATE_OF_STAGE: Record<string, JobStateName | 'complete'> = {
  queued: 'waiting',
  processing: 'running',
  error: 'failed',
  complete: 'complete',
};

export const presentAdminUser = (row: {
  id: string;
  email: string;
  name: string | null;
  disabled_at: number | null;
  rooms_owned: number | string | null;
  storage_bytes: number | string | null;
  created_at: number | string;
  last_seen_at: number | string | null;
}) => ({
  id: row.id,
  email: row.email,
  name: row.name,
  disabled: row.disabled_at !== null,
  roomsOwned: Number(row.rooms_owned ?? 0),
  storageBytes: Number(row.storage_bytes ?? 0),
  createdAt: Number(row.created_at),
  lastSeenAt: row.last_seen_at === null ? null : Number(row.last_seen_at),
});

export const presentAdminRoom = (row: {
  id: string;
  name: string | null;
  created_at: number | string;
  owner_id: string | null;
  owner_email: string | null;
  members: number | string | null;
  storage_bytes: number | string | null;
  changed_at: number | string | null;
}) => ({
  id: row.id,
  name: row.name,
  ownerId: row.owner_id,
  ownerEmail: row.owner_email,
  members: Number(row.members ?? 0),
  storageBytes: Number(row.storage_bytes ?? 0),
  updatedAt: Number(row.changed_at ?? row.created_at),
});

export const presentAdminJob = (row: JobRow) => {
  const state = STATE_OF_STAGE[row.stage] ?? 'failed';
  return {
    id: row.id,
    kind: row.kind,
    roomId: row.room_id,
    state,
    error: state === 'failed' ? (row.message ?? 'Failed') : null,
    createdAt: Number(row.created_at),
  };
};

export const presentAuditEntry = (row: AuditRow) => ({
  at: Number(row.at),
  adminId: row.admin_id,
  action: row.action as AuditAction,
  target: row.target,
});

/** An opaque page cursor: the last row's order values. */
export const cursorOf = (parts: [number, string]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
