import type { MigrationDb } from './helpers.ts';

/**
 * An enrolment code made to re-enrol one agent already registered (docs/it-guide.md,
 * "Re-enrol a computer"): its uuid, null for a code that enrols new agents only. Redeemed,
 * such a code revokes that agent's old tokens; any other code refuses a uuid the company
 * already knows (server/enrollments/redeem-enrollment.ts).
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('print_enrollments').addColumn('agent_uuid', 'varchar(36)').execute();
}
