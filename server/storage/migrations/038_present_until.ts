import { sql } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

/**
 * Until when an agent counts as present (docs/printing.md, "Online"): written with its
 * `last_seen_at`, two heartbeat intervals later for an agent, three of its polling intervals
 * for a printer that polls every minute (docs/cloudprnt.md), so that each row says its own
 * online interval and every "is it online" reads one column. Rows seen before are given the
 * agents' rule with the default heartbeat (15 s): their next heartbeat or poll rewrites it.
 * The partial index of online agents, which the offline sweep reads, is now on it.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('print_agents').addColumn('present_until', 'varchar(32)').execute();
  const later = isPostgres(db)
    ? sql`to_char((last_seen_at::timestamptz + interval '30 seconds') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`
    : sql`strftime('%Y-%m-%dT%H:%M:%SZ', last_seen_at, '+30 seconds')`;
  await sql`update print_agents set present_until = ${later} where last_seen_at is not null`.execute(
    db,
  );
  await sql`drop index print_agents_online`.execute(db);
  await sql`create index print_agents_present on print_agents (present_until) where online_since is not null`.execute(
    db,
  );
}
