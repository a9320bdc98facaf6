import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationProvider } from '../../server/storage/migrate.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { startServe } from '../helpers/serve-process.ts';
import { testSecretKey } from '../helpers/server.ts';

/**
 * Three `shopdesk serve` processes started at once on a fresh PostgreSQL database
 * (docs/scale-out.md): Kysely's migrator takes a PostgreSQL advisory lock
 * (`pg_advisory_lock`) around the migrations, so one migrates while the others wait, then
 * find nothing to do. All three start; every migration ran once.
 */

const databases: FreshDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

describe('three instances starting at once on a fresh PostgreSQL database', () => {
  it.each([1, 2])(
    'all start, each migration runs once, no error (round %i)',
    async () => {
      const database = await freshDatabase();
      databases.push(database);
      const env = { SHOPDESK_SECRET_KEY: testSecretKey };
      const started = await Promise.allSettled(
        [1, 2, 3].map(() => startServe(['--database-url', database.url], env)),
      );
      const servers = started.flatMap((one) => (one.status === 'fulfilled' ? [one.value] : []));
      try {
        expect(started.map((one) => one.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
        for (const server of servers) {
          const ready = await fetch(`${server.url}/api/v1/health/ready`);
          expect(ready.status).toBe(200);
          // No error, no warning about the schema in any instance's log.
          expect(server.stderr()).not.toMatch(/"level":(50|60)|migration/i);
        }
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          const { rows } = await client.query<{ name: string; n: number }>(
            'select name, count(*)::int as n from kysely_migration group by name order by name',
          );
          const known = Object.keys(await migrationProvider.getMigrations()).sort();
          expect(rows.map((row) => row.name)).toEqual(known);
          expect(rows.every((row) => row.n === 1)).toBe(true);
        } finally {
          await client.end();
        }
      } finally {
        for (const server of servers) {
          server.child.kill('SIGTERM');
          expect(await server.exited).toBe(0);
        }
      }
    },
    120_000,
  );
});
