import type { MigrationDb } from './helpers.ts';

/**
 * What people do to agents in the console:
 * - `named_in_console`: a person named the agent (1) rather than the agent itself at its
 *   registration (0): a name chosen in the console ("Front till") stays when the agent
 *   registers again with its hostname (server/printing/agents/register-agent.ts);
 * - `removed_at`: a person removed the agent (server/printing/agents/remove-agent.ts). The row
 *   stays, hidden, so that its id stays the agent's: every instance caches uuid → row id
 *   (agent-identities.ts), and the agent registering again brings the same row back.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('print_agents')
    .addColumn('named_in_console', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('print_agents').addColumn('removed_at', 'varchar(32)').execute();
}
