import type { MigrationDb } from './helpers.ts';

/**
 * Whether a person named the agent in the console (1) rather than the agent itself at its
 * registration (0): a name chosen in the console ("Front till") stays when the agent
 * registers again with its hostname (server/printing/agents/register-agent.ts).
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('print_agents')
    .addColumn('named_in_console', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
