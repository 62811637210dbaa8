import type { Db } from '../../db/database.js';
import type { AdminAuditTable } from '../../db/tables.js';

export type AuditRow = AdminAuditTable;

/** Where a page of the audit list starts: after the entry with this time and id (newest first). */
export interface AuditStart {
  at: number;
  id: string;
}

/** The audit list of the instance admins' actions. */
export class AuditRepository {
  constructor(private readonly db: Db) {}

  async insert(row: AuditRow): Promise<void> {
    await this.db.insertInto('admin_audit').values(row).execute();
  }

  /** Entries newest first, after `start`; `limit` at most. */
  list(start: AuditStart | undefined, limit: number) {
    let query = this.db.selectFrom('admin_audit').selectAll();
    if (start)
      query = query.where((eb) =>
        eb.or([eb('at', '<', start.at), eb.and([eb('at', '=', start.at), eb('id', '<', start.id)])]),
      );
    return query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }
}
