import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';

const companyNames = (storage: Storage) =>
  storage.db
    .selectFrom('companies')
    .select('name')
    .orderBy('id')
    .execute()
    .then((rows) => rows.map((row) => row.name));

const addCompany = (storage: Storage, name: string) =>
  storage.db
    .insertInto('companies')
    .values({ name, created_at: new Date().toISOString() })
    .execute();

// A unit of work (an idempotent request) holds one transaction; the operations it calls
// join it, and what waits for a commit (waking agents, webhooks) waits for the outermost one.
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

  it('an inner transaction joins the outer one: a failure after it undoes both', async () => {
    await expect(
      storage.transaction(async () => {
        await storage.transaction(() => addCompany(storage, 'joined-inner'));
        await addCompany(storage, 'joined-outer');
        throw new Error('the unit fails after its inner operation returned');
      }),
    ).rejects.toThrow('the unit fails');
    expect(await companyNames(storage)).not.toContain('joined-inner');
    expect(await companyNames(storage)).not.toContain('joined-outer');
  });

  it('storage.db inside a transaction is that transaction (no wait for the connection it holds)', async () => {
    await storage.transaction(async (trx) => {
      expect(storage.db).toBe(trx);
      await addCompany(storage, 'through-storage-db');
    });
    expect(storage.db.isTransaction).toBe(false);
    expect(await companyNames(storage)).toContain('through-storage-db');
  });

  it('afterCommit hooks run once the outermost transaction has committed, in order', async () => {
    const seen: string[] = [];
    await storage.transaction(async () => {
      await storage.transaction(async () => {
        await addCompany(storage, 'hooked');
        storage.afterCommit(() => seen.push('inner'));
      });
      storage.afterCommit(() => seen.push('outer'));
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['inner', 'outer']);
  });

  it('a rolled-back transaction drops its afterCommit hooks', async () => {
    const seen: string[] = [];
    await storage
      .transaction(async () => {
        storage.afterCommit(() => seen.push('never'));
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(seen).toEqual([]);
  });

  it('afterCommit outside a transaction runs at once', () => {
    let ran = false;
    storage.afterCommit(() => {
      ran = true;
    });
    expect(ran).toBe(true);
  });

  it('work started inside a transaction that runs after it ended does not reuse it', async () => {
    let later: Promise<unknown> | undefined;
    await storage.transaction(async () => {
      later = new Promise((resolve) => setTimeout(resolve, 10)).then(() =>
        storage.transaction(() => addCompany(storage, 'after-the-end')),
      );
    });
    await later;
    expect(storage.db.isTransaction).toBe(false);
    expect(await companyNames(storage)).toContain('after-the-end');
  });

  it('two units of work at once keep apart', async () => {
    const results = await Promise.allSettled([
      storage.transaction(async () => {
        await addCompany(storage, 'unit-a');
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new Error('a fails');
      }),
      storage.transaction(() => addCompany(storage, 'unit-b')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    const names = await companyNames(storage);
    expect(names).toContain('unit-b');
    expect(names).not.toContain('unit-a');
  });
});
