import { sql } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

/**
 * PostgreSQL: a change of `tokens` or `companies` (an update or a delete, by this server,
 * the CLI or a hand-written statement) sends a notice on `shopdesk_tokens` with its commit,
 * so that every instance drops the tokens it keeps in memory (server/tokens/authenticate.ts).
 * A trigger rather than a call in each writer: a revocation typed into psql must count too.
 * New tokens need no notice: an unknown secret is never cached. SQLite's cache watches
 * `PRAGMA data_version` instead.
 */
export async function up(db: MigrationDb): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`
    create function shopdesk_tokens_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('shopdesk_tokens', tg_table_name);
      return null;
    end
    $$`.execute(db);
  for (const table of ['tokens', 'companies']) {
    await sql`
      create trigger ${sql.id(`${table}_changed`)}
      after update or delete or truncate on ${sql.table(table)}
      for each statement execute function shopdesk_tokens_changed()`.execute(db);
  }
}
