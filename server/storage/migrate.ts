import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import type { Storage } from './database.ts';
import * as core from './migrations/001_core.ts';
import * as customers from './migrations/002_customers.ts';
import * as catalog from './migrations/003_catalog.ts';
import * as products from './migrations/004_products.ts';
import * as stock from './migrations/005_stock.ts';
import * as offers from './migrations/006_offers.ts';
import * as printing from './migrations/007_printing.ts';
import * as idempotency from './migrations/008_idempotency.ts';
import * as webhooks from './migrations/009_webhooks.ts';
import * as hardening from './migrations/010_hardening.ts';
import * as customerRoles from './migrations/012_customer_roles.ts';
import * as movementsUnindexed from './migrations/013_movements_unindexed.ts';
import * as tokenNotices from './migrations/014_token_notices.ts';
import * as agentFleet from './migrations/019_agent_fleet.ts';
import * as templates from './migrations/020_templates.ts';
import * as consoleUsers from './migrations/021_console_users.ts';
import * as tokenRoutes from './migrations/023_token_routes.ts';
import * as routesVersion from './migrations/024_routes_version.ts';
import * as reenrolCodes from './migrations/025_reenrol_codes.ts';
import * as jobEventsByCompany from './migrations/026_job_events_by_company.ts';
import * as consoleUsersPerCompany from './migrations/027_console_users_per_company.ts';
import * as heldNotices from './migrations/028_held_notices.ts';
import * as templateAssets from './migrations/029_template_assets.ts';
import * as backupPrinters from './migrations/030_backup_printers.ts';
import * as printerAttention from './migrations/031_printer_attention.ts';
import * as agentNames from './migrations/032_agent_names.ts';
import * as consoleJobReads from './migrations/033_console_job_reads.ts';
import * as cloudprntPrinters from './migrations/034_cloudprnt_printers.ts';
import * as epsonSdpPrinters from './migrations/035_epson_sdp_printers.ts';
import * as cloudprntClaimNumbers from './migrations/036_cloudprnt_claim_numbers.ts';
import * as epsonStatusAt from './migrations/037_epson_status_at.ts';
import * as presentUntil from './migrations/038_present_until.ts';
import * as heldByQueueIndex from './migrations/039_held_by_queue_index.ts';
import * as consoleDayIndex from './migrations/040_console_day_index.ts';
import * as expiryByQueueIndex from './migrations/041_expiry_by_queue_index.ts';
import * as sqliteEventsUnindexedByCompany from './migrations/042_sqlite_events_unindexed_by_company.ts';

/** Numbered migrations, in order. A new one is a new file and a line here. */
const migrations: Record<string, Migration> = {
  '001_core': core,
  '002_customers': customers,
  '003_catalog': catalog,
  '004_products': products,
  '005_stock': stock,
  '006_offers': offers,
  '007_printing': printing,
  '008_idempotency': idempotency,
  '009_webhooks': webhooks,
  '010_hardening': hardening,
  '012_customer_roles': customerRoles,
  '013_movements_unindexed': movementsUnindexed,
  '014_token_notices': tokenNotices,
  '019_agent_fleet': agentFleet,
  '020_templates': templates,
  '021_console_users': consoleUsers,
  '023_token_routes': tokenRoutes,
  '024_routes_version': routesVersion,
  '025_reenrol_codes': reenrolCodes,
  '026_job_events_by_company': jobEventsByCompany,
  '027_console_users_per_company': consoleUsersPerCompany,
  '028_held_notices': heldNotices,
  '029_template_assets': templateAssets,
  '030_backup_printers': backupPrinters,
  '031_printer_attention': printerAttention,
  '032_agent_names': agentNames,
  '033_console_job_reads': consoleJobReads,
  '034_cloudprnt_printers': cloudprntPrinters,
  '035_epson_sdp_printers': epsonSdpPrinters,
  '036_cloudprnt_claim_numbers': cloudprntClaimNumbers,
  '037_epson_status_at': epsonStatusAt,
  '038_present_until': presentUntil,
  '039_held_by_queue_index': heldByQueueIndex,
  '040_console_day_index': consoleDayIndex,
  '041_expiry_by_queue_index': expiryByQueueIndex,
  '042_sqlite_events_unindexed_by_company': sqliteEventsUnindexedByCompany,
};

/** The project's migrations, for a Migrator (tests migrate a database part of the way). */
export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(storage: Storage): Promise<void> {
  // A database already up to date is only read. Kysely's migrator would open a transaction
  // and check its lock row all the same: on a SQLite file the server is writing to (a
  // `shopdesk token revoke` beside `serve`), that could fail the command with "database is
  // locked" under load.
  if ((await pendingMigrations(storage)).length === 0) return;
  const migrator = new Migrator({ db: storage.db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    const name = failed ? ` ${failed.migrationName}` : '';
    throw new Error(`database migration${name} failed: ${(error as Error).message ?? error}`);
  }
}

/**
 * The migrations this code knows that the database has not run (readiness: an instance whose
 * schema is behind must not be sent requests). Reads the migration table; nothing is written.
 */
export async function pendingMigrations(storage: Storage): Promise<string[]> {
  const migrator = new Migrator({ db: storage.db, provider: migrationProvider });
  const known = await migrator.getMigrations();
  return known.filter((migration) => migration.executedAt === undefined).map((m) => m.name);
}
