import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTransient } from '../../server/storage/connection-loss.ts';
import { openStorage, type Storage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';
import { statementNameOf } from '../../server/storage/pg-named-statements.ts';
import { prepared } from '../../server/storage/prepared.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';

/**
 * On PostgreSQL the queries compiled once (`prepared()`) run as named statements, planned
 * once per connection (server/storage/pg-named-statements.ts); a change of the table under
 * one (a migration by another instance) gets it prepared again instead of an error.
 */

// A statement of this test's own, so that its name is not shared with the server's.
const companyById = prepared<{ id: number }, { id: number; name: string }>((db, p) =>
  db.selectFrom('companies').selectAll().where('id', '=', p.id).where('id', '>', -7),
);
const companyText = 'select * from "companies" where "id" = $1 and "id" > $2';

/** Changes the table under the statements, from another connection (another instance). */
async function alterCompanies(url: string, column: string): Promise<void> {
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  try {
    await other.query(`alter table companies add column ${column} text`);
  } finally {
    await other.end();
  }
}

describe('named statements on PostgreSQL', () => {
  let database: FreshDatabase;
  let storage: Storage;
  let companyId: number;

  beforeAll(async () => {
    database = await freshDatabase();
    storage = openStorage({ kind: 'postgres', url: database.url });
    await migrateToLatest(storage);
    const row = await storage.db
      .insertInto('companies')
      .values({ name: 'Named', created_at: new Date().toISOString() })
      .returning('id')
      .executeTakeFirstOrThrow();
    companyId = row.id;
  });
  afterAll(async () => {
    await storage.close();
    await database.drop();
  });

  it('a prepared() query is prepared once on its connection and run by name after', async () => {
    await storage.db.connection().execute(async (connection) => {
      expect(await companyById(connection, { id: companyId })).toMatchObject([{ name: 'Named' }]);
      expect(await companyById(connection, { id: companyId })).toMatchObject([{ name: 'Named' }]);
      const name = statementNameOf(companyText);
      expect(name).toMatch(/^shopdesk_\d+$/);
      const kept = await connection
        .selectFrom('pg_prepared_statements' as 'companies')
        .select('name')
        .execute();
      expect(kept.map((row) => row.name)).toContain(name);
    });
  });

  it('a table changed under it by another connection: prepared again, and it answers', async () => {
    await storage.db.connection().execute(async (connection) => {
      expect(await companyById(connection, { id: companyId })).toHaveLength(1);
      const before = statementNameOf(companyText);
      await alterCompanies(database.url, 'named_statement_test');
      // PostgreSQL refuses the kept plan ("cached plan must not change result type").
      const [row] = await companyById(connection, { id: companyId });
      expect(row).toMatchObject({ name: 'Named', named_statement_test: null });
      expect(statementNameOf(companyText)).not.toBe(before);
    });
  });

  it('inside a transaction the refusal has aborted it: a transient error (503), and the next one runs', async () => {
    await storage.db.connection().execute(async (connection) => {
      expect(await companyById(connection, { id: companyId })).toHaveLength(1);
      await alterCompanies(database.url, 'named_statement_in_transaction');
      const attempt = connection
        .transaction()
        .execute((trx) => Promise.resolve(companyById(trx, { id: companyId })));
      const refused = await attempt.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isTransient(refused)).toBe(true);
      expect((refused as { code?: string }).code).toBe('0A000');
      const again = await connection
        .transaction()
        .execute((trx) => Promise.resolve(companyById(trx, { id: companyId })));
      expect(again[0]).toMatchObject({ named_statement_in_transaction: null });
    });
  });
});
