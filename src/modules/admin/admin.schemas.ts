import { Type, type Static } from 'typebox';
import { Nullable } from '../../schema-types.js';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Next = Nullable(Type.String({ description: 'Pass as `after` for the next page; null on the last page' }));
const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Rows per page (1 to 100)' });
const After = Type.String({
  minLength: 1,
  maxLength: 200,
  description: "The previous page's `next`, as it was (opaque)",
});

export const UserParams = Type.Object({ userId: Id });
export const JobParams = Type.Object({ jobId: Id });

export const ListQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Text to look for (any case)' })),
    limit: Type.Optional(Limit),
    after: Type.Optional(After),
  },
  { additionalProperties: false },
);
export type ListInput = Static<typeof ListQuery>;

export const AuditQuery = Type.Object(
  { limit: Type.Optional(Limit), after: Type.Optional(After) },
  { additionalProperties: false },
);
export type AuditInput = Static<typeof AuditQuery>;

export const AdminUser = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Nullable(Type.String()),
  disabled: Type.Boolean({
    description: 'An admin disabled the account: it cannot sign in, its sessions and tokens are refused',
  }),
  roomsOwned: Type.Integer({ description: 'Rooms the user owns' }),
  storageBytes: Type.Integer({ description: "Bytes stored in the user's rooms (what the storage limit counts)" }),
  createdAt: Type.Integer({ description: 'Epoch milliseconds' }),
  lastSeenAt: Nullable(
    Type.Integer({ description: 'Epoch milliseconds; null when never seen since this was recorded' }),
  ),
});

export const AdminUserList = Type.Object({ users: Type.Array(AdminUser), next: Next });

export const DeleteUserQuery = Type.Object(
  {
    rooms: Type.Optional(
      Type.Literal('delete', {
        description: 'Delete the rooms the user owns too; without it, owning rooms is 409 owns_rooms',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AdminRoom = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  ownerId: Nullable(Type.String({ description: "The owner's user id" })),
  ownerEmail: Nullable(
    Type.String({ description: "The owner's e-mail address (beside the interface's fields, for the page)" }),
  ),
  members: Type.Integer({ description: 'Members, the owner included' }),
  storageBytes: Type.Integer({ description: 'Bytes the room stores' }),
  updatedAt: Type.Integer({ description: 'Epoch milliseconds of the last change of content (its creation when none)' }),
});

export const AdminRoomList = Type.Object({ rooms: Type.Array(AdminRoom), next: Next });

export const TransferBody = Type.Object(
  { userId: Type.String({ minLength: 1, maxLength: 100, description: 'A member of the room, the new owner' }) },
  { additionalProperties: false },
);

export const JobState = Type.Enum(['waiting', 'running', 'failed'], {
  description: 'waiting: queued; running: a worker has it; failed: ended with an error (or cancelled)',
});
export type JobStateName = Static<typeof JobState>;

export const JobsQuery = Type.Object({ state: Type.Optional(JobState) }, { additionalProperties: false });

export const AdminJob = Type.Object({
  id: Type.String(),
  kind: Type.String({ description: 'layer-upload, bulk-import, room-export, room-clone, ...' }),
  roomId: Type.String(),
  state: Type.Enum(['waiting', 'running', 'failed', 'complete'], {
    description: 'complete only in the answer of a retry or cancel that came after the job ended',
  }),
  error: Nullable(Type.String({ description: 'Why it failed; null unless failed' })),
  createdAt: Type.Integer({ description: 'Epoch milliseconds' }),
});

export const AdminJobList = Type.Object({ jobs: Type.Array(AdminJob) });

export const AuditEntry = Type.Object({
  at: Type.Integer({ description: 'Epoch milliseconds' }),
  adminId: Type.String({ description: 'The user id of the admin who acted' }),
  action: Type.Enum([
    'user.disable',
    'user.enable',
    'user.delete',
    'user.password-reset',
    'room.transfer',
    'room.delete',
    'job.retry',
    'job.cancel',
  ]),
  target: Type.String({ description: 'The id of the user, room or job acted on' }),
});
export type AuditAction = Static<typeof AuditEntry>['action'];

export const AuditList = Type.Object({ entries: Type.Array(AuditEntry), next: Next });

export const Limits = Type.Object({
  maxRoomsPerUser: Type.Integer({ description: 'Rooms one user may own (MAX_ROOMS_PER_USER); 0: no limit' }),
  storageQuotaBytes: Type.Integer({
    description: 'Bytes of files the rooms one user owns may store in all (STORAGE_QUOTA_BYTES)',
  }),
  mostRoomsOwned: Type.Integer({ description: 'The most rooms one user owns' }),
  mostStorageBytes: Type.Integer({ description: "The most bytes one user's rooms store" }),
});

export const NoContent = Type.Null({ description: 'Done' });

export const Accepted = Type.Object({}, { additionalProperties: false, description: 'The link is on its way' });
