import type { MigrationDb } from './helpers.ts';

/**
 * A token may be bound to one print agent: with `agent_uuid` set, it acts only as the agent of
 * that uuid (docs/security.md). Null, as for every token before, is any agent of the company.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('agent_uuid', 'varchar(36)').execute();
}
