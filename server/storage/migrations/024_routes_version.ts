import type { MigrationDb } from './helpers.ts';

/**
 * A count of the changes to an agent's routes, by the agent (`PUT /printing/routes`) or by a
 * person in the console: the agent reads it in every heartbeat's answer and fetches its
 * configuration again when it moved past the one it last saw (docs/agent.md, "Routes edited
 * in the console").
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('print_agents')
    .addColumn('routes_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
