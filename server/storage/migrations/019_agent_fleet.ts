import { isPostgres, type MigrationDb, withId } from './helpers.ts';

/**
 * A fleet of print agents: enrolment codes (stored hashed) and the agents each enrolled, the
 * agent builds IT publishes (their bytes in chunks, so that every instance serves them and a
 * build is written and read a chunk at a time, never whole in memory), and which update
 * channel each agent last read.
 */
export async function up(db: MigrationDb): Promise<void> {
  const blob = isPostgres(db) ? 'bytea' : 'blob';
  await withId(db, db.schema.createTable('print_enrollments'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('name', 'varchar(255)')
    .addColumn('routes', 'text', (c) => c.notNull())
    .addColumn('uses', 'integer', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('revoked_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('print_enrollments_company')
    .on('print_enrollments')
    .columns(['company_id', 'id'])
    .execute();

  await withId(db, db.schema.createTable('print_enrollment_agents'))
    .addColumn('enrollment_id', 'integer', (c) => c.notNull().references('print_enrollments.id'))
    .addColumn('company_id', 'integer', (c) => c.notNull())
    .addColumn('agent_uuid', 'varchar(36)', (c) => c.notNull())
    .addColumn('token_id', 'integer', (c) => c.notNull())
    .addColumn('enrolled_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('print_enrollment_agents_enrollment')
    .on('print_enrollment_agents')
    .columns(['enrollment_id', 'id'])
    .execute();

  await withId(db, db.schema.createTable('agent_releases'))
    .addColumn('version', 'varchar(64)', (c) => c.notNull())
    .addColumn('platform', 'varchar(8)', (c) => c.notNull())
    .addColumn('channel', 'varchar(16)', (c) => c.notNull())
    .addColumn('file_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha512', 'varchar(100)', (c) => c.notNull())
    .addColumn('rollout', 'integer', (c) => c.notNull())
    // 0 while its chunks are written: a build is offered only once whole.
    .addColumn('complete', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('agent_releases_version')
    .on('agent_releases')
    .columns(['platform', 'channel', 'version'])
    .unique()
    .execute();

  await db.schema
    .createTable('agent_release_chunks')
    .addColumn('release_id', 'integer', (c) => c.notNull().references('agent_releases.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', blob, (c) => c.notNull())
    .addPrimaryKeyConstraint('agent_release_chunks_pk', ['release_id', 'seq'])
    .execute();

  await db.schema
    .createTable('agent_update_checks')
    .addColumn('company_id', 'integer', (c) => c.notNull())
    .addColumn('agent_uuid', 'varchar(36)', (c) => c.notNull())
    .addColumn('channel', 'varchar(16)', (c) => c.notNull())
    .addColumn('checked_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('agent_update_checks_pk', ['company_id', 'agent_uuid'])
    .execute();
}
