import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, ok } from '../../api/client';
import type { AdminUser, Limits } from '../../api/types';
import { t } from '../../i18n/index.js';
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
      return disabled
        ? t('admin:users.disabledDone', { email: user.email })
        : t('admin:users.enabledDone', { email: user.email });
    });
  const sendReset = (user: AdminUser) =>
    act(async () => {
      await ok(api.POST('/api/admin/users/{userId}/password-reset', { params: { path: { userId: user.id } } }));
      return t('admin:users.resetSent', { email: user.email });
    });
  const remove = (user: AdminUser) =>
    act(async () => {
      if (!(await confirmInPage(t('admin:users.deleteQuestion', { email: user.email })))) return '';
      const path = { userId: user.id };
      try {
        await ok(api.DELETE('/api/admin/users/{userId}', { params: { path } }));
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 'owns_rooms')) throw error;
        // It owns rooms: say which, and delete them with it only if confirmed again.
        const ids = (error.details as { rooms?: string[] } | undefined)?.rooms ?? [];
        const names = await roomNames(ids);
        const question = t('admin:users.ownsRooms', { count: ids.length, email: user.email, names: names.join(', ') });
        if (!(await confirmInPage(question, t('admin:users.deleteWithRooms')))) return '';
        await ok(api.DELETE('/api/admin/users/{userId}', { params: { path, query: { rooms: 'delete' } } }));
      }
      setUsers((shown) => shown!.filter((u) => u.id !== user.id));
      return t('admin:users.deleted', { email: user.email });
    });

  const columns = {
    user: t('admin:users.columns.user'),
    roomsOwned: t('admin:users.columns.roomsOwned'),
    storage: t('admin:columns.storage'),
    lastSeen: t('admin:users.columns.lastSeen'),
    state: t('admin:users.columns.state'),
    actions: t('admin:columns.actions'),
  };
  return (
    <section aria-labelledby="users-heading">
      <h2 id="users-heading">{t('admin:tabs.users')}</h2>
      <SearchedTable
        search={t('admin:users.search')}
        list={list}
        more={t('admin:users.more')}
        error={error}
        done={done}
        label={t('admin:tabs.users')}
        columns={Object.values(columns)}
        empty={t('admin:users.empty')}
        row={(user) => (
          <tr key={user.id} data-user={user.email}>
            <td data-label={columns.user}>
              {user.email}
              {user.id === me?.id && <span class="muted"> {t('admin:users.you')}</span>}
              {user.name && <div class="muted">{user.name}</div>}
            </td>
            <td data-label={columns.roomsOwned}>
              {ofLimit(user.roomsOwned, limits?.maxRoomsPerUser ?? 0, !limits?.maxRoomsPerUser)}
            </td>
            <td data-label={columns.storage}>
              {ofLimit(
                bytesText(user.storageBytes),
                bytesText(limits?.storageQuotaBytes ?? 0),
                !limits?.storageQuotaBytes,
              )}
            </td>
            <td data-label={columns.lastSeen}>{timeText(user.lastSeenAt)}</td>
            <td data-label={columns.state}>
              {user.disabled ? <strong>{t('admin:users.disabled')}</strong> : t('admin:users.active')}
            </td>
            <td class="actions" data-label={columns.actions}>
              {user.id !== me?.id && (
                <button type="button" onClick={() => setDisabled(user, !user.disabled)}>
                  {user.disabled ? t('admin:users.enable') : t('admin:users.disable')}
                </button>
              )}
              <button type="button" onClick={() => sendReset(user)}>
                {t('admin:users.sendReset')}
              </button>
              {user.id !== me?.id && (
                <button type="button" class="danger" onClick={() => remove(user)}>
                  {t('admin:delete')}
                </button>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
