import { isPostgres, type MigrationDb, withId } from './helpers.ts';

/**
 * The web console's people: users of one company each, with a role, a scrypt password hash
 * (null until they set one through their one-time link), and their sessions (the cookie's
 * sha256, never the cookie). Sessions live in the database so that every instance sees a
 * sign-out, a password change or a removal at once.
 */
export async function up(db: MigrationDb): Promise<void> {
  await withId(db, db.schema.createTable('console_users'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('email', 'varchar(320)', (c) => c.notNull())
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('password_hash', 'varchar(255)')
    .addColumn('setup_hash', 'varchar(64)')
    .addColumn('setup_expires_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  // One account per address across companies: sign-in asks for the address alone.
  await db.schema
    .createIndex('console_users_email')
    .on('console_users')
    .column('email')
    .unique()
    .execute();
  await db.schema
    .createIndex('console_users_setup')
    .on('console_users')
    .column('setup_hash')
    .execute();

  await withId(db, db.schema.createTable('console_sessions'))
    .addColumn('user_id', 'integer', (c) =>
      c.notNull().references('console_users.id').onDelete('cascade'),
    )
    .addColumn('company_id', 'integer', (c) => c.notNull())
    .addColumn('hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('console_sessions_user')
    .on('console_sessions')
    .column('user_id')
    .execute();
  // The jobs page lists a company's jobs newest first, often by state: without these the
  // list reads every job of the company (100,000 in bench/console.ts) to sort or filter.
  // SQLite's index on company_id already keeps each company's rows in id order (the rowid
  // is part of every index entry); PostgreSQL's does not.
  await db.schema
    .createIndex('print_jobs_company_status_id')
    .on('print_jobs')
    .columns(['company_id', 'status', 'id'])
    .execute();
  if (isPostgres(db)) {
    await db.schema
      .createIndex('print_jobs_company_id_desc')
      .on('print_jobs')
      .columns(['company_id', 'id desc'])
      .execute();
  }
}

export async function down(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) await db.schema.dropIndex('print_jobs_company_id_desc').execute();
  await db.schema.dropIndex('print_jobs_company_status_id').execute();
  await db.schema.dropTable('console_sessions').execute();
  await db.schema.dropTable('console_users').execute();
}
