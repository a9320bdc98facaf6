import { sql } from 'kysely';
import { isPostgres, type MigrationDb, withId } from './helpers.ts';

/** The print queue: agents, their routes, documents (stored once), jobs and job events. */
export async function up(db: MigrationDb): Promise<void> {
  const blob = isPostgres(db) ? 'bytea' : 'blob';

  await withId(db, db.schema.createTable('print_agents'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('uuid', 'varchar(36)', (c) => c.notNull().unique())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('hostname', 'varchar(255)', (c) => c.notNull())
    .addColumn('platform', 'varchar(32)', (c) => c.notNull())
    .addColumn('version', 'varchar(64)', (c) => c.notNull())
    .addColumn('printers', 'text', (c) => c.notNull())
    .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_seen_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('print_agents_company')
    .on('print_agents')
    .column('company_id')
    .execute();

  await withId(db, db.schema.createTable('print_routes'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('agent_id', 'integer', (c) =>
      c.notNull().references('print_agents.id').onDelete('cascade'),
    )
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('printer', 'varchar(255)', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('print_routes_agent_name')
    .on('print_routes')
    .columns(['agent_id', 'name'])
    .unique()
    .execute();
  await db.schema
    .createIndex('print_routes_company_name')
    .on('print_routes')
    .columns(['company_id', 'name'])
    .execute();

  await withId(db, db.schema.createTable('print_documents'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content', blob, (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('print_documents_company_sha256')
    .on('print_documents')
    .columns(['company_id', 'sha256'])
    .unique()
    .execute();

  await withId(db, db.schema.createTable('print_jobs'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('document_id', 'integer', (c) => c.notNull().references('print_documents.id'))
    .addColumn('route', 'varchar(64)', (c) => c.notNull())
    .addColumn('title', 'varchar(255)')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('content_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('copies', 'integer', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('agent_id', 'varchar(36)')
    .addColumn('printer', 'varchar(255)')
    .addColumn('error_message', 'text')
    .addColumn('error_code', 'varchar(64)')
    .addColumn('reprint_of', 'integer', (c) => c.references('print_jobs.id'))
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('claimed_at', 'varchar(32)')
    .addColumn('printed_at', 'varchar(32)')
    .addColumn('expires_at', 'varchar(32)')
    .addColumn('lease_expires_at', 'varchar(32)')
    .execute();
  // The queue: queued jobs of a company on a route, highest priority then oldest, in the
  // order the claim reads them (no sort step). Partial: a job leaves it when claimed, and
  // confirming or failing a job does not touch it at all.
  await sql`create index print_jobs_queue on print_jobs (company_id, route, priority desc, id) where status = 'queued'`.execute(
    db,
  );
  // The sweeps: claimed jobs by lease end, queued jobs by expiry. Partial, so that a job
  // is in them only while it can lapse, and claiming or confirming touches fewer pages.
  await sql`create index print_jobs_leases on print_jobs (lease_expires_at) where status = 'claimed'`.execute(
    db,
  );
  await sql`create index print_jobs_expiry on print_jobs (expires_at) where status = 'queued' and expires_at is not null`.execute(
    db,
  );
  // History: a company's jobs newest first (the index carries the id, so no sort).
  await db.schema.createIndex('print_jobs_company').on('print_jobs').column('company_id').execute();

  await withId(db, db.schema.createTable('print_job_events'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('job_id', 'integer', (c) =>
      c.notNull().references('print_jobs.id').onDelete('cascade'),
    )
    .addColumn('from_status', 'varchar(16)')
    .addColumn('to_status', 'varchar(16)', (c) => c.notNull())
    .addColumn('agent_id', 'varchar(36)')
    .addColumn('message', 'text')
    .addColumn('at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('print_job_events_job')
    .on('print_job_events')
    .column('job_id')
    .execute();
}
