import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, ok } from '../../api/client';
import type { AdminUser, Limits } from '../../api/types';
import { confirmInPage } from '../../ui/confirm-dialog';
import { SearchedTable, useAdminActions, usePagedList } from './admin-list';
import { session } from '../../session';
import { useStore } from '../../store';
import { bytesText, ofLimit, timeText } from './admin-format';
import { roomNames } from './admin-rooms';

/** Users: search, rooms owned and storage, disable or enable, send a reset link, delete. */
export function UsersSection() {
  const me = useStore(session).user;
  const [limits, setLimits] = useState<Limits | null>(null);
  const { error, attempt, done, act } = useAdminActions();
  const list = usePagedList(attempt, async (query) => {
    const page = await ok(api.GET('/api/admin/users', { params: { query } }));
    return { items: page.users, next: page.next };
  });
  const setUsers = list.setItems;
  useEffect(() => {
    void list.load();
    // Each user's use is shown against the limits per user.
    void attempt(async () => setLimits(await ok(api.GET('/api/admin/limits'))));
  }, []);

  const replace = (user: AdminUser) => setUsers((shown) => shown!.map((u) => (u.id === user.id ? user : u)));
  const setDisabled = (user: AdminUser, disabled: boolean) =>
    act(async () => {
      const path = { userId: user.id };
      replace(
        await ok(
          disabled
            ? api.POST('/api/admin/users/{userId}/disable', { params: { path } })
            : api.POST('/api/admin/users/{userId}/enable', { params: { path } }),
        ),
      );
      return `${user.email} is ${disabled ? 'disabled' : 'enabled'}.`;
    });
  const sendReset = (user: AdminUser) =>
    act(async () => {
      await ok(api.POST('/api/admin/users/{userId}/password-reset', { params: { path: { userId: user.id } } }));
      return `A password reset link was sent to ${user.email}.`;
    });
  const remove = (user: AdminUser) =>
    act(async () => {
      if (!(await confirmInPage(`Delete the account ${user.email}? This cannot be undone.`))) return '';
      const path = { userId: user.id };
      try {
        await ok(api.DELETE('/api/admin/users/{userId}', { params: { path } }));
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 'owns_rooms')) throw error;
        // It owns rooms: say which, and delete them with it only if confirmed again.
        const ids = (error.details as { rooms?: string[] } | undefined)?.rooms ?? [];
        const names = await roomNames(ids);
        const question = `${user.email} owns ${ids.length === 1 ? 'this room' : `these ${ids.length} rooms`}, which would be deleted with the account: ${names.join(', ')}.`;
        if (!(await confirmInPage(question, 'Delete account and rooms'))) return '';
        await ok(api.DELETE('/api/admin/users/{userId}', { params: { path, query: { rooms: 'delete' } } }));
      }
      setUsers((shown) => shown!.filter((u) => u.id !== user.id));
      return `The account ${user.email} is deleted.`;
    });

  return (
    <section aria-labelledby="users-heading">
      <h2 id="users-heading">Users</h2>
      <SearchedTable
        search="Search users"
        list={list}
        more="More users"
        error={error}
        done={done}
        label="Users"
        columns={['User', 'Rooms owned', 'Storage', 'Last seen', 'State', 'Actions']}
        empty="No users match."
        row={(user) => (
          <tr key={user.id} data-user={user.email}>
            <td data-label="User">
              {user.email}
              {user.id === me?.id && <span class="muted"> (you)</span>}
              {user.name && <div class="muted">{user.name}</div>}
            </td>
            <td data-label="Rooms owned">
              {ofLimit(user.roomsOwned, limits?.maxRoomsPerUser ?? 0, !limits?.maxRoomsPerUser)}
            </td>
            <td data-label="Storage">
              {ofLimit(
                bytesText(user.storageBytes),
                bytesText(limits?.storageQuotaBytes ?? 0),
                !limits?.storageQuotaBytes,
              )}
            </td>
            <td data-label="Last seen">{timeText(user.lastSeenAt)}</td>
            <td data-label="State">{user.disabled ? <strong>Disabled</strong> : 'Active'}</td>
            <td class="actions" data-label="Actions">
              {user.id !== me?.id && (
                <button type="button" onClick={() => setDisabled(user, !user.disabled)}>
                  {user.disabled ? 'Enable' : 'Disable'}
                </button>
              )}
              <button type="button" onClick={() => sendReset(user)}>
                Send reset link
              </button>
              {user.id !== me?.id && (
                <button type="button" class="danger" onClick={() => remove(user)}>
                  Delete
                </button>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
