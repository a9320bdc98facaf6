import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCompany } from '../../server/companies/create-company.ts';
import { createCustomer } from '../../server/customers/create-customer.ts';
import { openStorage, type Storage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';
import { groupedSqliteTransaction, prepared } from '../../server/storage/prepared.ts';

const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

const rename = prepared((db, p: { id: number; name: string }) =>
  db.updateTable('customers').set({ name: p.name }).where('id', '=', p.id).returning('name'),
);

const nameOf = prepared((db, p: { id: number }) =>
  db.selectFrom('customers').select('name').where('id', '=', p.id),
);

// SQLite's group commit (server/storage/group-commit.ts): the print queue's claims and
// confirms made in one turn of the event loop share one transaction. These prove that no
// caller hears of its write before the commit, what a member's failure undoes, and
// that nothing else run on the connection lands inside the open group.
describe('group commit on SQLite', () => {
  let dir: string;
  let file: string;
  let storage: Storage;
  /** Another connection to the same file: it sees only what is committed. */
  let observer: BetterSqlite3.Database;
  let ids: number[];

  /** A synchronous member of the group (as the print queue's claim is) renaming one customer. */
  const renameInGroup = (id: number, name: string) =>
    groupedSqliteTransaction(storage.db, () => rename.sync(storage.db, { id, name }))!;

  const committedName = (id: number) =>
    (observer.prepare('select name from customers where id = ?').get(id) as { name: string }).name;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shopdesk-group-'));
    file = join(dir, 'db.sqlite');
    storage = openStorage({ kind: 'sqlite', file });
    await migrateToLatest(storage);
    const companyId = await createCompany(storage.db, 'Shop');
    ids = [];
    for (const name of ['A', 'B', 'C']) {
      const created = await createCustomer(
        storage,
        storage.db,
        companyId,
        { name, type: 'F', addresses: [] },
        new Date(),
      );
      ids.push(created.id);
    }
    observer = new Sqlite(file, { readonly: true });
  });

  afterEach(async () => {
    observer.close();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('members joined in one turn commit together, and each hears of it only after the commit', async () => {
    let settled = 0;
    const members = ids.map((id, n) =>
      groupedSqliteTransaction(storage.db, () =>
        rename.sync(storage.db, { id, name: `New ${n}` }),
      )!.then((rows) => {
        settled++;
        // Every member's write is committed by the time any member hears of its own.
        expect(ids.map(committedName)).toEqual(['New 0', 'New 1', 'New 2']);
        return rows;
      }),
    );
    // Still in the turn that opened the group: nothing committed, nobody answered.
    expect(ids.map(committedName)).toEqual(['A', 'B', 'C']);
    await Promise.resolve();
    expect(settled).toBe(0);
    expect(await Promise.all(members)).toEqual([
      [{ name: 'New 0' }],
      [{ name: 'New 1' }],
      [{ name: 'New 2' }],
    ]);
  });

  it('a synchronous member whose work throws rolls the whole group back: every member hears the error, nothing half-done is committed', async () => {
    const first = renameInGroup(ids[0]!, 'Lost first');
    const failing = groupedSqliteTransaction(storage.db, () => {
      rename.sync(storage.db, { id: ids[1]!, name: 'Lost' });
      throw new Error('this member fails');
    })!;
    // A new group opens after it: its members commit.
    const last = renameInGroup(ids[2]!, 'Kept');
    await expect(failing).rejects.toThrow('this member fails');
    await expect(first).rejects.toThrow('this member fails');
    expect(await last).toEqual([{ name: 'Kept' }]);
    expect(ids.map(committedName)).toEqual(['A', 'B', 'Kept']);
  });

  it('a prepared read while a group is open joins it: its rows come once the group has committed, and it commits nothing early', async () => {
    const member = renameInGroup(ids[0]!, 'Grouped');
    const read = nameOf(storage.db, { id: ids[0]! });
    // A promise, not rows: the read waits for the group's one commit instead of forcing it.
    expect(read).toBeInstanceOf(Promise);
    expect(committedName(ids[0]!)).toBe('A');
    expect(await read).toEqual([{ name: 'Grouped' }]);
    expect(committedName(ids[0]!)).toBe('Grouped');
    expect(await member).toEqual([{ name: 'Grouped' }]);
  });

  it('a prepared read with no group open runs at once, synchronously', () => {
    expect(nameOf(storage.db, { id: ids[1]! })).toEqual([{ name: 'B' }]);
  });

  it('a prepared write outside the group commits the open group first', async () => {
    const member = renameInGroup(ids[0]!, 'Grouped');
    // UPDATE … RETURNING reads rows back, and writes: it is not a read.
    const written = rename(storage.db, { id: ids[1]!, name: 'Outside' });
    expect(written).toEqual([{ name: 'Outside' }]);
    expect(committedName(ids[0]!)).toBe('Grouped');
    expect(committedName(ids[1]!)).toBe('Outside');
    expect(await member).toEqual([{ name: 'Grouped' }]);
  });

  it('a transaction started while a group is open joins it, and its caller goes on only once the group has committed', async () => {
    const member = renameInGroup(ids[0]!, 'Grouped');
    const seenInside = await storage.transaction(storage.db, async (trx) => {
      await trx.updateTable('customers').set({ name: 'Later' }).where('id', '=', ids[1]!).execute();
      // Both writes are in the open group: nothing of it is committed yet.
      return ids.map(committedName);
    });
    expect(seenInside).toEqual(['A', 'B', 'C']);
    expect(ids.map(committedName)).toEqual(['Grouped', 'Later', 'C']);
    expect(await member).toEqual([{ name: 'Grouped' }]);
  });

  it('a transaction that fails in the group undoes its own writes only', async () => {
    const member = renameInGroup(ids[0]!, 'Grouped');
    const failing = storage.transaction(storage.db, async (trx) => {
      await trx.updateTable('customers').set({ name: 'Lost' }).where('id', '=', ids[1]!).execute();
      throw new Error('this transaction fails');
    });
    const later = storage.transaction(storage.db, async (trx) => {
      await trx.updateTable('customers').set({ name: 'Later' }).where('id', '=', ids[2]!).execute();
    });
    await expect(failing).rejects.toThrow('this transaction fails');
    await Promise.all([member, later]);
    expect(ids.map(committedName)).toEqual(['Grouped', 'B', 'Later']);
  });

  it('a query outside any transaction commits the open group first', async () => {
    const member = renameInGroup(ids[1]!, 'Grouped');
    const read = await storage.db
      .selectFrom('customers')
      .select('name')
      .where('id', '=', ids[1]!)
      .executeTakeFirstOrThrow();
    expect(read.name).toBe('Grouped');
    expect(committedName(ids[1]!)).toBe('Grouped');
    await member;
  });

  it('closing the storage commits the open group', async () => {
    const member = renameInGroup(ids[2]!, 'Before close');
    await storage.close();
    expect(await member).toEqual([{ name: 'Before close' }]);
    expect(committedName(ids[2]!)).toBe('Before close');
    storage = openStorage({ kind: 'sqlite', file });
  });
});
