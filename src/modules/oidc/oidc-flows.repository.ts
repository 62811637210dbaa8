import type { Db } from '../../db/database.js';
import type { OidcFlowsTable } from '../../db/tables.js';

/** The sign-ins under way, by the hash of their `state` (shared by every instance through the database). */
export class OidcFlowsRepository {
  constructor(private readonly db: Db) {}

  async insert(flow: OidcFlowsTable): Promise<void> {
    await this.db.insertInto('oidc_flows').values(flow).execute();
  }

  /** Removes the flow and answers it: a second callback with the same state finds nothing (single use). */
  take(stateHash: string) {
    return this.db.deleteFrom('oidc_flows').where('state_hash', '=', stateHash).returningAll().executeTakeFirst();
  }

  /** Forgets flows that were never finished. */
  async sweep(now: number): Promise<void> {
    await this.db.deleteFrom('oidc_flows').where('expires_at', '<', now).execute();
  }
}
