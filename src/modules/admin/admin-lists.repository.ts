import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Tables } from '../../db/tables.js';
import { containsText } from '../../db/text-match.js';

/** Where a page starts: after the row with this creation time and id (newest first). */
export interface PageStart {
  createdAt: number;
  id: string;
}

type Eb = ExpressionBuilder<Tables, 'rooms'>;

/** The bytes a room stores (files, vector layers' tables, chunks of unfinished uploads). */
const roomBytes = (eb: Eb) =>
  eb(
    eb(
      eb.fn.coalesce(
        eb
          .selectFrom('stored_files')
          .select((s) => s.fn.sum<number>('bytes').as('b'))
          .whereRef('stored_files.room_id', '=', 'rooms.id'),
        eb.lit(0),
      ),
      '+',
      eb.fn.coalesce(
        eb
          .selectFrom('layers')
          .select((s) => s.fn.sum<number>('size_bytes').as('b'))
          .whereRef('layers.room_id', '=', 'rooms.id'),
        eb.lit(0),
      ),
    ),
    '+',
    eb.fn.coalesce(
      eb
        .selectFrom('upload_chunks')
        .select((s) => s.fn.sum<number>('bytes').as('b'))
        .whereRef('upload_chunks.room_id', '=', 'rooms.id'),
      eb.lit(0),
    ),
  );

/**
 * What the instance admin's lists read across accounts and rooms: users with the rooms they
 * own and the bytes those hold, rooms with owner, members, bytes and last change. Read only;
 * each domain's own repository keeps writing its rows.
 */
export class AdminListsRepository {
  constructor(private readonly db: Db) {}

  /**
   * Accounts not deleted, newest first, whose e-mail or name contains `q`, after `start`;
   * `limit` rows at most.
   */
  users(q: string | undefined, start: PageStart | undefined, limit: number) {
    let query = this.userRows();
    if (q) query = query.where((eb) => eb.or([containsText('email', q), containsText('name', q)]));
    if (start) query = query.where((eb) => afterStart(eb, 'created_at', 'id', start));
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** One account as the list shows it; undefined when there is none (or it was deleted). */
  user(id: string) {
    return this.userRows().where('id', '=', id).executeTakeFirst();
  }

  private userRows() {
    return this.db
      .selectFrom('users')
      .select(['id', 'email', 'name', 'disabled_at', 'created_at', 'last_seen_at'])
      .select((eb) => [
        eb
          .selectFrom('room_members')
          .select((s) => s.fn.countAll<number>().as('n'))
          .whereRef('room_members.user_id', '=', 'users.id')
          .where('room_members.role', '=', 'owner')
          .as('rooms_owned'),
        eb
          .selectFrom('rooms')
          .innerJoin('room_members', 'room_members.room_id', 'rooms.id')
          .whereRef('room_members.user_id', '=', 'users.id')
          .where('room_members.role', '=', 'owner')
          .select((r) => r.fn.coalesce(r.fn.sum<number>(roomBytes(r as unknown as Eb)), r.lit(0)).as('b'))
          .as('storage_bytes'),
      ])
      .where('deleted_at', 'is', null);
  }

  /** Rooms newest first whose name or id contains `q`, after `start`; `limit` rows at most. */
  rooms(q: string | undefined, start: PageStart | undefined, limit: number) {
    let query = this.roomRows();
    if (q) query = query.where((eb) => eb.or([containsText('rooms.name', q), containsText('rooms.id', q)]));
    if (start) query = query.where((eb) => afterStart(eb, 'rooms.created_at', 'rooms.id', start));
    return query.orderBy('rooms.created_at', 'desc').orderBy('rooms.id', 'desc').limit(limit).execute();
  }

  /** One room as the list shows it, or undefined. */
  room(id: string) {
    return this.roomRows().where('rooms.id', '=', id).executeTakeFirst();
  }

  private roomRows() {
    return this.db
      .selectFrom('rooms')
      .select(['rooms.id', 'rooms.name', 'rooms.created_at'])
      .select((eb) => [
        eb
          .selectFrom('room_members')
          .select('user_id')
          .whereRef('room_members.room_id', '=', 'rooms.id')
          .where('role', '=', 'owner')
          .limit(1)
          .as('owner_id'),
        eb
          .selectFrom('room_members')
          .innerJoin('users', 'users.id', 'room_members.user_id')
          .select('users.email')
          .whereRef('room_members.room_id', '=', 'rooms.id')
          .where('role', '=', 'owner')
          .limit(1)
          .as('owner_email'),
        eb
          .selectFrom('room_members')
          .select((s) => s.fn.countAll<number>().as('n'))
          .whereRef('room_members.room_id', '=', 'rooms.id')
          .as('members'),
        roomBytes(eb).as('storage_bytes'),
        eb
          .selectFrom('history')
          .select((s) => s.fn.max('at').as('at'))
          .whereRef('history.room_id', '=', 'rooms.id')
          .as('changed_at'),
      ]);
  }

  /** The rooms a user owns (their ids, oldest first). */
  async roomsOwnedBy(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('room_members')
      .innerJoin('rooms', 'rooms.id', 'room_members.room_id')
      .select('rooms.id')
      .where('room_members.user_id', '=', userId)
      .where('room_members.role', '=', 'owner')
      .orderBy('rooms.created_at')
      .execute();
    return rows.map((r) => r.id);
  }

  /** The most rooms one user owns, and the most bytes one user's rooms hold (the limits' use). */
  async largestUse(): Promise<{ roomsOwned: number; storageBytes: number }> {
    const owners = this.db
      .selectFrom('rooms')
      .innerJoin('room_members', 'room_members.room_id', 'rooms.id')
      .where('room_members.role', '=', 'owner')
      .groupBy('room_members.user_id');
    const rooms = await owners
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .orderBy('n', 'desc')
      .limit(1)
      .executeTakeFirst();
    const bytes = await owners
      .select((eb) => eb.fn.sum<number>(roomBytes(eb as unknown as Eb)).as('n'))
      .orderBy('n', 'desc')
      .limit(1)
      .executeTakeFirst();
    return { roomsOwned: Number(rooms?.n ?? 0), storageBytes: Number(bytes?.n ?? 0) };
  }
}

/** Rows after `start` in the order (created desc, id desc). */
function afterStart(
  // biome-ignore lint/suspicious/noExplicitAny: the users' and rooms' builders alike
  eb: ExpressionBuilder<any, any>,
  createdColumn: string,
  idColumn: string,
  start: PageStart,
) {
  return eb.or([
    eb(eb.ref(createdColumn), '<', start.createdAt),
    eb.and([eb(eb.ref(createdColumn), '=', start.createdAt), eb(eb.ref(idColumn), '<', start.id)]),
  ]);
}
