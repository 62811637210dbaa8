import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import type { AdminRoom } from '../../api/types';
import { confirmInPage } from '../../ui/confirm-dialog';
import { SearchedTable, useAdminActions, usePagedList } from './admin-list';
import { bytesText, timeText } from './admin-format';

/** The names of rooms by id (`name (id)`), for a confirmation; an id that matches no room stays as it is. */
export async function roomNames(ids: string[]): Promise<string[]> {
  return Promise.all(
    ids.map(async (id) => {
      const { rooms } = await ok(api.GET('/api/admin/rooms', { params: { query: { q: id } } }));
      const room = rooms.find((r) => r.id === id);
      return room?.name ? `${room.name} (${id})` : id;
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
      if (!user) throw new Error(`No account has the address ${email.trim()}.`);
      const moved = await ok(
        api.PUT('/api/admin/rooms/{roomId}/owner', {
          params: { path: { roomId: room.id } },
          body: { userId: user.id },
        }),
      );
      setRooms((shown) => shown!.map((r) => (r.id === moved.id ? moved : r)));
      return `${user.email} owns ${room.name ?? room.id} now.`;
    });
  const remove = (room: AdminRoom) =>
    act(async () => {
      const what = room.name ? `${room.name} (${room.id})` : room.id;
      if (!(await confirmInPage(`Delete the room ${what} with everything in it? This cannot be undone.`))) return '';
      await ok(api.DELETE('/api/admin/rooms/{roomId}', { params: { path: { roomId: room.id } } }));
      setRooms((shown) => shown!.filter((r) => r.id !== room.id));
      return `The room ${what} is deleted.`;
    });

  return (
    <section aria-labelledby="rooms-heading">
      <h2 id="rooms-heading">Rooms</h2>
      <SearchedTable
        search="Search rooms by name or id"
        list={list}
        more="More rooms"
        error={error}
        done={done}
        label="Rooms"
        columns={['Room', 'Owner', 'Members', 'Storage', 'Last change', 'Actions']}
        empty="No rooms match."
        row={(room) => (
          <tr key={room.id}>
            <td data-label="Room">
              {room.name ?? <span class="muted">(no name)</span>}
              <div class="muted">{room.id}</div>
            </td>
            <td data-label="Owner">{room.ownerEmail ?? room.ownerId ?? '—'}</td>
            <td data-label="Members">{room.members}</td>
            <td data-label="Storage">{bytesText(room.storageBytes)}</td>
            <td data-label="Last change">{timeText(room.updatedAt)}</td>
            <td class="actions" data-label="Actions">
              <TransferForm room={room} onTransfer={(email) => transfer(room, email)} />
              <button type="button" class="danger" onClick={() => remove(room)}>
                Delete
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
        aria-label={`New owner of ${room.name ?? room.id} (a member's e-mail)`}
        placeholder="member's e-mail"
        required
      />
      <button type="submit">Transfer</button>
    </form>
  );
}
