import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { describe, expect, it } from 'vitest';
import type { DatabaseTarget } from '../../server/config.ts';
import { openStorage } from '../../server/storage/database.ts';
import { migrateToLatest, migrationProvider } from '../../server/storage/migrate.ts';
import { freshDatabase } from '../helpers/postgres.ts';

/**
 * Migration 038_present_until (docs/printing.md, "Online"): agents seen before it count as
 * present for the agents' rule with the default heartbeat, 30 s after their last heartbeat;
 * one never seen has no presence. On SQLite and on PostgreSQL.
 */
describe.each(['sqlite', 'postgres'] as const)('migration 038 on %s', (dialect) => {
  it('gives each agent seen before it last_seen_at + 30 s as present_until', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shopdesk-present-'));
    const scratch = dialect === 'postgres' ? await freshDatabase() : null;
    const target: DatabaseTarget = scratch
      ? { kind: 'postgres', url: scratch.url }
      : { kind: 'sqlite', file: join(dir, 'before-038.sqlite') };
    const storage = openStorage(target);
    try {
      const migrator = new Migrator({ db: storage.db, provider: migrationProvider });
      expect((await migrator.migrateTo('037_epson_status_at')).error).toBeUndefined();
      await sql`insert into companies (name, created_at) values ('Old Co', '2026-01-01T00:00:00Z')`.execute(
        storage.db,
      );
      const agent = (uuid: string, seen: string | null) =>
        sql`insert into print_agents (company_id, uuid, name, hostname, platform, version, printers, paused, last_seen_at, online_since, created_at, updated_at)
          values (1, ${uuid}, ${uuid}, 'till', 'linux', '1', '[]', 0, ${seen}, ${seen}, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`.execute(
          storage.db,
        );
      await agent('seen', '2026-11-22T23:59:45Z');
      await agent('never', null);
      await migrateToLatest(storage);
      const rows = await storage.db
        .selectFrom('print_agents')
        .select(['uuid', 'present_until'])
        .orderBy('uuid')
        .execute();
      expect(rows).toEqual([
        { uuid: 'never', present_until: null },
        { uuid: 'seen', present_until: '2026-11-23T00:00:15Z' },
      ]);
    } finally {
      await storage.close();
      await scratch?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
