import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCompany } from '../../server/companies/create-company.ts';
import { createCustomer } from '../../server/customers/create-customer.ts';
import { findCustomer } from '../../server/customers/read-customer.ts';
import { openStorage, type Storage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';
import { groupedSqliteTransaction, prepared } from '../../server/storage/prepared.ts';

const rename = prepared((db, p: { id: number; name: string }) =>
  db.updateTable('customers').set({ name: p.name }).where('id', '=', p.id).returning('name'),
);

const nameOf = prepared((db, p: { id: number }, dialect) =>
  db
    .selectFrom('customers')
    .select((eb) => ['name', eb.val(dialect).as('dialect')])
    .where('id', '=', p.id),
);

// Prepared queries on SQLite skip Kysely's connection mutex when they safely can; these
// prove they never read into, or write into, another request's open transaction.
describe('prepared queries on SQLite', () => {
  let dir: string;
  let storage: Storage;
  let companyId: number;
  let customerId: number;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shopdesk-prepared-'));
    storage = openStorage({ kind: 'sqlite', file: join(dir, 'db.sqlite') });
    await migrateToLatest(storage);
    companyId = await createCompany(storage.db, 'Shop');
    const created = await createCustomer(
      storage,
      storage.db,
      companyId,
      { name: 'Original', type: 'F', addresses: [] },
      new Date(),
    );
    customerId = created.id;
  });

  afterEach(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a read outside an open transaction waits for it and never sees its uncommitted rows', async () => {
    let readDuringTransaction: Promise<unknown> | undefined;
    let settledEarly = false;
    const transaction = storage.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('customers')
        .set({ name: 'Uncommitted' })
        .where('id', '=', customerId)
        .execute();
      readDuringTransaction = Promise.resolve(findCustomer(storage.db, companyId, customerId)).then(
        (found) => {
          settledEarly = true;
          return found;
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(settledEarly).toBe(false);
      throw new Error('roll back');
    });
    await expect(transaction).rejects.toThrow('roll back');
    const found = (await readDuringTransaction) as { name: string };
    expect(found.name).toBe('Original');
  });

  it('reads inside the transaction see its own writes', async () => {
    const inside = await storage.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('customers')
        .set({ name: 'Mine' })
        .where('id', '=', customerId)
        .execute();
      return findCustomer(trx, companyId, customerId);
    });
    expect(inside?.name).toBe('Mine');
    expect((await findCustomer(storage.db, companyId, customerId))?.name).toBe('Mine');
  });

  it('builds for the dialect, and compile fills in the values for a given connection', async () => {
    const query = nameOf.compile(storage.db, { id: customerId });
    expect(query.parameters).toEqual(['sqlite', customerId]);
    expect(await nameOf(storage.db, { id: customerId })).toEqual([
      { name: 'Original', dialect: 'sqlite' },
    ]);
  });

  it('on a connection holding its own BEGIN IMMEDIATE, runs on that connection', async () => {
    const seen = await storage.db.connection().execute(async (db) => {
      await db.executeQuery(CompiledQuery.raw('begin immediate'));
      try {
        await db
          .updateTable('customers')
          .set({ name: 'Held' })
          .where('id', '=', customerId)
          .execute();
        const direct = await nameOf(db, { id: customerId });
        const compiled = await db.executeQuery(nameOf.compile(db, { id: customerId }));
        return [direct[0]?.name, compiled.rows[0]?.name];
      } finally {
        await db.executeQuery(CompiledQuery.raw('rollback'));
      }
    });
    expect(seen).toEqual(['Held', 'Held']);
    expect((await findCustomer(storage.db, companyId, customerId))?.name).toBe('Original');
  });

  it('a grouped transaction commits its statements, and a throw rolls back its group', async () => {
    const committed = groupedSqliteTransaction(storage.db, () =>
      rename.sync(storage.db, { id: customerId, name: 'Committed' }),
    );
    expect(await committed).toEqual([{ name: 'Committed' }]);
    const undone = groupedSqliteTransaction(storage.db, () => {
      rename.sync(storage.db, { id: customerId, name: 'Rolled back' });
      throw new Error('undone');
    });
    await expect(undone).rejects.toThrow('undone');
    expect((await findCustomer(storage.db, companyId, customerId))?.name).toBe('Committed');
    // Once done, the connection is free again: the ordinary path runs.
    expect(await nameOf(storage.db, { id: customerId })).toEqual([
      { name: 'Committed', dialect: 'sqlite' },
    ]);
  });

  it('a grouped transaction runs nothing while another transaction holds the connection, nor inside one', async () => {
    await storage.db
      .transaction()
      .execute(async (trx) => {
        await trx
          .updateTable('customers')
          .set({ name: 'Held' })
          .where('id', '=', customerId)
          .execute();
        // Another request's transaction is open on the connection: refused, nothing ran.
        expect(groupedSqliteTransaction(storage.db, () => 'ran')).toBeUndefined();
        // A transaction object (a larger unit of work) is refused too: it must join that unit.
        expect(groupedSqliteTransaction(trx, () => 'ran')).toBeUndefined();
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect((await findCustomer(storage.db, companyId, customerId))?.name).toBe('Original');
    expect(() => rename.sync(storage.db, { id: customerId, name: 'Outside' })).toThrow(
      'prepared.sync runs only in groupedSqliteTransaction',
    );
  });
});
