import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import * as m0001 from './0001_accounts_rooms_members_tokens.js';
import * as m0002 from './0002_markers_history_jobs_files.js';
import * as m0003 from './0003_comments_drawings_slides.js';
import * as m0004 from './0004_email_verification_staged_jobs.js';
import * as m0005 from './0005_layers.js';
import * as m0006 from './0006_layer_fields_export_jobs.js';
import * as m0007 from './0007_export_jobs_are_jobs.js';
import * as m0008 from './0008_slide_objects.js';
import * as m0009 from './0009_staged_jobs_instance.js';
import * as m0010 from './0010_revoked_sessions.js';
import * as m0011 from './0011_ogc_paging_indexes.js';
import * as m0012 from './0012_history_objects.js';
import * as m0013 from './0013_account_states.js';
import * as m0014 from './0014_account_recovery.js';
import * as m0015 from './0015_oidc_sign_in.js';
import * as m0016 from './0016_admin_audit.js';
import * as m0017 from './0017_oidc_handovers.js';
import * as m0018 from './0018_user_locale.js';
import * as m0019 from './0019_webhooks.js';
import * as m0020 from './0020_embedding.js';
import * as m0021 from './0021_job_request_ids.js';
import * as m0022 from './0022_feature_edits.js';
import * as m0023 from './0023_layer_sources.js';
import * as m0024 from './0024_room_basemaps.js';

export type Dialect = 'sqlite' | 'postgres';

/** A migration step; it is told the dialect where the engines must differ (spatial indexes). */
type Step = { up(db: Kysely<any>, dialect: Dialect): Promise<void> };

/**
 * Migrations, oldest first. Columns use types both dialects understand (text, integer,
 * bigint, double precision); a step branches on the dialect only where the engines differ.
 * Append new steps; never edit one that has shipped.
 */
const STEPS: Record<string, Step> = {
  '0001_accounts_rooms_members_tokens': m0001,
  '0002_markers_history_jobs_files': m0002,
  '0003_comments_drawings_slides': m0003,
  '0004_email_verification_staged_jobs': m0004,
  '0005_layers': m0005,
  '0006_layer_fields_export_jobs': m0006,
  '0007_export_jobs_are_jobs': m0007,
  '0008_slide_objects': m0008,
  '0009_staged_jobs_instance': m0009,
  '0010_revoked_sessions': m0010,
  '0011_ogc_paging_indexes': m0011,
  '0012_history_objects': m0012,
  '0013_account_states': m0013,
  '0014_account_recovery': m0014,
  '0015_oidc_sign_in': m0015,
  '0016_admin_audit': m0016,
  '0017_oidc_handovers': m0017,
  '0018_user_locale': m0018,
  '0019_webhooks': m0019,
  '0020_embedding': m0020,
  '0021_job_request_ids': m0021,
  '0022_feature_edits': m0022,
  '0023_layer_sources': m0023,
  '0024_room_basemaps': m0024,
};

/** Runs the steps not yet run, up to `last` (a step's name; tests stop before a step to test it) or all of them. */
export async function migrateToLatest(db: Kysely<any>, dialect: Dialect, last?: string): Promise<void> {
  const migrations = Object.fromEntries(
    Object.entries(STEPS).map(([name, step]): [string, Migration] => [name, { up: (trx) => step.up(trx, dialect) }]),
  );
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const migrator = new Migrator({ db, provider });
  const { error, results } = await (last === undefined ? migrator.migrateToLatest() : migrator.migrateTo(last));
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
