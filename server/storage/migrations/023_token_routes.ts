import { sql } from 'kysely';
import type { MigrationDb } from './helpers.ts';

/**
 * The routes a token bound to one print agent may add to its agent (`PUT /printing/routes`):
 * a JSON array of route names, null for none. The routes the agent already serves it may
 * always keep (server/printing/agents/agent-binding.ts). Tokens enrolled before this
 * migration get the routes of the code they were traded for.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('routes', 'text').execute();
  await sql`
    update tokens set routes = (
      select e.routes from print_enrollment_agents a
      join print_enrollments e on e.id = a.enrollment_id
      where a.token_id = tokens.id
    )
    where agent_uuid is not null`.execute(db);
}
