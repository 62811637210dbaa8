import type { Db } from '../../db/database.js';
import type { OidcFlowsTable, OidcHandoversTable } from '../../db/tables.js';

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

  /** Forgets flows that were never finished, and hand-overs no browser came for. */
  async sweep(now: number): Promise<void> {
    await this.db.deleteFrom('oidc_flows').where('expires_at', '<', now).execute();
    await this.db.deleteFrom('oidc_handovers').where('expires_at', '<', now).execute();
  }

  async insertHandover(handover: OidcHandoversTable): Promise<void> {
    await this.db.insertInto('oidc_handovers').values(handover).execute();
  }

  /** Removes the hand-over and answers it: a second trade of the same cookie finds nothing (single use). */
  takeHandover(secretHash: string) {
    return this.db.deleteFrom('oidc_handovers').where('secret_hash', '=', secretHash).returningAll().executeTakeFirst();
  }
}
