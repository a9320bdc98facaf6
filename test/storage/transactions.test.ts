import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../server/storage/database.ts';
import type { Db } from '../../server/storage/db.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';

const companyNames = (storage: Storage) =>
  storage.db
    .selectFrom('companies')
    .select('name')
    .orderBy('id')
    .execute()
    .then((rows) => rows.map((row) => row.name));

const addCompany = (db: Db, name: string) =>
  db.insertInto('companies').values({ name, created_at: new Date().toISOString() }).execute();

// A unit of work (an idempotent request) holds one transaction and passes it to the
// operations it calls, which join it; what waits for a commit (waking agents, webhooks) is
// tied to that transaction and waits for its commit.
describe.each([
  ['SQLite', 'sqlite'],
  ['PostgreSQL', 'postgres'],
] as const)('storage.transaction on %s', (_name, kind) => {
  let storage: Storage;
  let dir: string | undefined;
  let database: FreshDatabase | undefined;

  beforeAll(async () => {
    if (kind === 'sqlite') {
      dir = mkdtempSync(join(tmpdir(), 'shopdesk-trx-'));
      storage = openStorage({ kind, file: join(dir, 'db.sqlite') });
    } else {
      database = await freshDatabase();
      storage = openStorage({ kind, url: database.url });
    }
    await migrateToLatest(storage);
  });

  afterAll(async () => {
    await storage.close();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('given a transaction, it joins it: a failure after the inner work undoes both', async () => {
    await expect(
      storage.transaction(storage.db, async (trx) => {
        await storage.transaction(trx, (inner) => {
          expect(inner).toBe(trx);
          return addCompany(inner, 'joined-inner');
        });
        await addCompany(trx, 'joined-outer');
        throw new Error('the unit fails after its inner operation returned');
      }),
    ).rejects.toThrow('the unit fails');
    expect(await companyNames(storage)).not.toContain('joined-inner');
    expect(await companyNames(storage)).not.toContain('joined-outer');
  });

  it('given the database, it opens a transaction of its own; storage.db stays the database', async () => {
    await storage.transaction(storage.db, async (trx) => {
      expect(trx.isTransaction).toBe(true);
      expect(storage.db.isTransaction).toBe(false);
      await addCompany(trx, 'own-transaction');
    });
    expect(await companyNames(storage)).toContain('own-transaction');
  });

  it('afterCommit hooks of a transaction run once it has committed, in order, joined work included', async () => {
    const seen: string[] = [];
    await storage.transaction(storage.db, async (trx) => {
      await storage.transaction(trx, async (inner) => {
        await addCompany(inner, 'hooked');
        storage.afterCommit(inner, () => seen.push('inner'));
      });
      storage.afterCommit(trx, () => seen.push('outer'));
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['inner', 'outer']);
  });

  it('a rolled-back transaction drops its afterCommit hooks', async () => {
    const seen: string[] = [];
    await storage
      .transaction(storage.db, async (trx) => {
        storage.afterCommit(trx, () => seen.push('never'));
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(seen).toEqual([]);
  });

  it('afterCommit given the database runs at once', () => {
    let ran = false;
    storage.afterCommit(storage.db, () => {
      ran = true;
    });
    expect(ran).toBe(true);
  });

  it('a transaction that has ended refuses to take hooks or join work: the mistake shows', async () => {
    let ended: Db | undefined;
    await storage.transaction(storage.db, async (trx) => {
      ended = trx;
    });
    expect(() => storage.afterCommit(ended!, () => {})).toThrow('not an open transaction');
    await expect(storage.transaction(ended!, async () => 1)).rejects.toThrow(
      'not an open transaction',
    );
  });

  it('two units of work at once keep apart', async () => {
    const results = await Promise.allSettled([
      storage.transaction(storage.db, async (trx) => {
        await addCompany(trx, 'unit-a');
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new Error('a fails');
      }),
      storage.transaction(storage.db, (trx) => addCompany(trx, 'unit-b')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    const names = await companyNames(storage);
    expect(names).toContain('unit-b');
    expect(names).not.toContain('unit-a');
  });
});
