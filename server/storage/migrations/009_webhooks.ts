import { sql } from 'kysely';
import { type MigrationDb, withId } from './helpers.ts';

/**
 * Webhooks: endpoints, the outbox of deliveries, and the agents' announced presence (what
 * the last `agent.online` / `agent.offline` said).
 */
export async function up(db: MigrationDb): Promise<void> {
  await withId(db, db.schema.createTable('webhook_endpoints'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('url', 'varchar(2000)', (c) => c.notNull())
    .addColumn('description', 'varchar(255)')
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_at', 'varchar(32)')
    .addColumn('disabled_reason', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'varchar(32)')
    .addColumn('failing_since', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_company')
    .on('webhook_endpoints')
    .column('company_id')
    .execute();

  await withId(db, db.schema.createTable('webhook_deliveries'))
    .addColumn('company_id', 'integer', (c) => c.notNull())
    .addColumn('endpoint_id', 'integer', (c) => c.notNull())
    .addColumn('event_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('type', 'varchar(64)', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('queued_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'varchar(32)')
    .addColumn('last_attempt_at', 'varchar(32)')
    .addColumn('last_response_status', 'integer')
    .addColumn('last_response_body', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('delivered_at', 'varchar(32)')
    .execute();
  // The dispatcher's pick: pending deliveries by due time. Partial, so a delivered row
  // leaves it and the index stays the size of the backlog.
  await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(
    db,
  );
  // An endpoint's deliveries, newest first (GET /webhooks/{id}/deliveries).
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'id'])
    .execute();
  // Retention: finished deliveries older than the retention period are deleted by age.
  await db.schema
    .createIndex('webhook_deliveries_created')
    .on('webhook_deliveries')
    .column('created_at')
    .execute();

  // When the agent last came online as webhooks announced it; null once the sweep found
  // it silent for the online interval (agent.offline). Agents seen before start online:
  // the first sweep announces the silent ones offline.
  await db.schema.alterTable('print_agents').addColumn('online_since', 'varchar(32)').execute();
  await sql`update print_agents set online_since = last_seen_at`.execute(db);
  await sql`create index print_agents_online on print_agents (last_seen_at) where online_since is not null`.execute(
    db,
  );
}
