import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';

/**
 * Migrations on SQLite are all or nothing: a start killed (or failing) in the middle of one
 * leaves the schema as it was, so the next start migrates cleanly (docs/storage.md).
 */

const dir = mkdtempSync(join(tmpdir(), 'shopdesk-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tables = async (storage: ReturnType<typeof openStorage>) =>
  (
    await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(
      storage.db,
    )
  ).rows.map((row) => row.name);

describe('SQLite migrations', () => {
  it('a migration that fails half-way leaves nothing behind, and the next run completes', async () => {
    const storage = openStorage({ kind: 'sqlite', file: join(dir, 'half.sqlite') });
    try {
      await migrateToLatest(storage);
      let fail = true;
      const migrator = new Migrator({
        db: storage.db,
        provider: {
          getMigrations: async () => ({
            '900_half': {
              async up(db) {
                await db.schema.createTable('half_made').addColumn('id', 'integer').execute();
                await sql`insert into half_made (id) values (1)`.execute(db);
                if (fail) throw new Error('killed here');
                await db.schema.createTable('other_half').addColumn('id', 'integer').execute();
              },
            },
          }),
        },
        // This migrator knows only its own migration; the project's are already applied.
        allowUnorderedMigrations: true,
        migrationTableName: 'test_migrations',
        migrationLockTableName: 'test_migrations_lock',
      });
      const failed = await migrator.migrateToLatest();
      expect(String(failed.error)).toContain('killed here');
      expect(await tables(storage)).not.toContain('half_made');
      fail = false;
      const done = await migrator.migrateToLatest();
      expect(done.error).toBeUndefined();
      expect(await tables(storage)).toEqual(expect.arrayContaining(['half_made', 'other_half']));
    } finally {
      await storage.close();
    }
  });

  it('migrating an up-to-date database again changes nothing', async () => {
    const file = join(dir, 'again.sqlite');
    const first = openStorage({ kind: 'sqlite', file });
    await migrateToLatest(first);
    const before = await tables(first);
    await first.close();
    const second = openStorage({ kind: 'sqlite', file });
    try {
      await migrateToLatest(second);
      expect(await tables(second)).toEqual(before);
      expect(before).toEqual(expect.arrayContaining(['companies', 'products', 'offers']));
    } finally {
      await second.close();
    }
  });
});
