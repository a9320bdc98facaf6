import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCompany } from '../../server/companies/companies.ts';
import { createCustomer, findCustomer } from '../../server/customers/queries.ts';
import { openStorage, type Storage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';

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
    companyId = await createCompany(storage, 'Shop');
    const created = await createCustomer(
      storage,
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
      readDuringTransaction = findCustomer(storage.db, companyId, customerId).then((found) => {
        settledEarly = true;
        return found;
      });
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
});
