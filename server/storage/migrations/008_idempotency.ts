import { isPostgres, type MigrationDb, withId } from './helpers.ts';

/**
 * Idempotency keys: per company, operation and key, the answer of the first request that
 * used the key (stored in the transaction of its write) and the fingerprint of its payload.
 */
export async function up(db: MigrationDb): Promise<void> {
  const blob = isPostgres(db) ? 'bytea' : 'blob';
  await withId(db, db.schema.createTable('idempotency_keys'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    // Method and route template: `POST /printing/jobs/{job}/retry`.
    .addColumn('operation', 'varchar(300)', (c) => c.notNull())
    .addColumn('key', 'varchar(255)', (c) => c.notNull())
    .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('body', blob)
    // JSON object of the headers replayed with the body (content-type, location).
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  // The final word on "one answer per key": two writers of one key cannot both commit.
  await db.schema
    .createIndex('idempotency_keys_key')
    .on('idempotency_keys')
    .columns(['company_id', 'operation', 'key'])
    .unique()
    .execute();
  // No index on expires_at: keys expire in the order they were stored, so the sweep walks
  // the table from its oldest id. An index there cost every keyed write a page (measured
  // in docs/http.md).
}
