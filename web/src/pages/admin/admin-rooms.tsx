import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import type { AdminRoom } from '../../api/types';
import { t } from '../../i18n/index.js';
import { confirmInPage } from '../../ui/confirm-dialog';
import { SearchedTable, useAdminActions, usePagedList } from './admin-list';
import { bytesText, timeText } from './admin-format';

/** The names of rooms by id (`name (id)`), for a confirmation; an id that matches no room stays as it is. */
export async function roomNames(ids: string[]): Promise<string[]> {
  return Promise.all(
    ids.map(async (id) => {
      const { rooms } = await ok(api.GET('/api/admin/rooms', { params: { query: { q: id } } }));
      const room = rooms.find((r) => r.id === id);
      return room?.name ? t('admin:rooms.nameAndId', { name: room.name, id }) : id;
    }),
  );
}

/** Rooms: search by name or id, owner, members, storage, last change; hand over, delete. */
export function RoomsSection() {
  const { error, attempt, done, act } = useAdminActions();
  const list = usePagedList(attempt, async (query) => {
    const page = await ok(api.GET('/api/admin/rooms', { params: { query } }));
    return { items: page.rooms, next: page.next };
  });
  const setRooms = list.setItems;
  useEffect(() => void list.load(), []);

  const transfer = (room: AdminRoom, email: string) =>
    act(async () => {
      // The new owner by address: the users list finds the account.
      const { users } = await ok(api.GET('/api/admin/users', { params: { query: { q: email.trim() } } }));
      const user = users.find((u) => u.email.toLowerCase() === email.trim().toLowerCase());
      if (!user) throw new Error(t('admin:rooms.noAccount', { email: email.trim() }));
      const moved = await ok(
        api.PUT('/api/admin/rooms/{roomId}/owner', {
          params: { path: { roomId: room.id } },
          body: { userId: user.id },
        }),
      );
      setRooms((shown) => shown!.map((r) => (r.id === moved.id ? moved : r)));
      return t('admin:rooms.transferred', { email: user.email, room: room.name ?? room.id });
    });
  const remove = (room: AdminRoom) =>
    act(async () => {
      const what = room.name ? t('admin:rooms.nameAndId', { name: room.name, id: room.id }) : room.id;
      if (!(await confirmInPage(t('admin:rooms.deleteQuestion', { room: what })))) return '';
      await ok(api.DELETE('/api/admin/rooms/{roomId}', { params: { path: { roomId: room.id } } }));
      setRooms((shown) => shown!.filter((r) => r.id !== room.id));
      return t('admin:rooms.deleted', { room: what });
    });

  const columns = {
    room: t('admin:rooms.columns.room'),
    owner: t('admin:rooms.columns.owner'),
    members: t('admin:rooms.columns.members'),
    storage: t('admin:columns.storage'),
    lastChange: t('admin:rooms.columns.lastChange'),
    actions: t('admin:columns.actions'),
  };
  return (
    <section aria-labelledby="rooms-heading">
      <h2 id="rooms-heading">{t('admin:tabs.rooms')}</h2>
      <SearchedTable
        search={t('admin:rooms.search')}
        list={list}
        more={t('admin:rooms.more')}
        error={error}
        done={done}
        label={t('admin:tabs.rooms')}
        columns={Object.values(columns)}
        empty={t('admin:rooms.empty')}
        row={(room) => (
          <tr key={room.id}>
            <td data-label={columns.room}>
              {room.name ?? <span class="muted">{t('admin:rooms.noName')}</span>}
              <div class="muted">{room.id}</div>
            </td>
            <td data-label={columns.owner}>{room.ownerEmail ?? room.ownerId ?? '—'}</td>
            <td data-label={columns.members}>{room.members}</td>
            <td data-label={columns.storage}>{bytesText(room.storageBytes)}</td>
            <td data-label={columns.lastChange}>{timeText(room.updatedAt)}</td>
            <td class="actions" data-label={columns.actions}>
              <TransferForm room={room} onTransfer={(email) => transfer(room, email)} />
              <button type="button" class="danger" onClick={() => remove(room)}>
                {t('admin:delete')}
              </button>
            </td>
          </tr>
        )}
      />
    </section>
  );
}

function TransferForm({ room, onTransfer }: { room: AdminRoom; onTransfer: (email: string) => void }) {
  const [email, setEmail] = useState('');
  return (
    <form
      class="inline"
      onSubmit={(event) => {
        event.preventDefault();
        if (email.trim()) onTransfer(email);
      }}
    >
      <input
        type="email"
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
        aria-label={t('admin:rooms.newOwner', { room: room.name ?? room.id })}
        placeholder={t('admin:rooms.newOwnerPlaceholder')}
        required
      />
      <button type="submit">{t('admin:rooms.transfer')}</button>
    </form>
  );
}
