import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readyBody } from '../../shared/connectivity.ts';
import { errorBody } from '../../shared/http.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { captureLogs, startTestServer, type TestServer } from '../helpers/server.ts';

/** `GET /api/v1/health/ready`: the database answers and its migrations have all run. */

describe.each(['sqlite', 'postgres'] as const)('readiness on %s', (dialect) => {
  let server: TestServer;
  let database: FreshDatabase | undefined;

  beforeAll(async () => {
    if (dialect === 'postgres') database = await freshDatabase();
    server = await startTestServer({
      ...(database && { database: { kind: 'postgres', url: database.url } }),
    });
  });
  afterAll(async () => {
    await server.close();
    await database?.drop();
  });

  it('answers 200 without a token when the database answers and the schema is current', async () => {
    const answer = await server.request('GET', '/health/ready');
    expect(answer.status).toBe(200);
    expect(readyBody.parse(answer.body).status).toBe('ready');
    expect(answer.headers.get('retry-after')).toBeNull();
  });

  it('answers 503 not_ready, naming the migration, when one has not run; 200 once it has', async () => {
    const db = server.app.services.storage.db;
    const [row] = await db
      .selectFrom('kysely_migration' as never)
      .select(['name' as never, 'timestamp' as never])
      .orderBy('name' as never, 'desc')
      .limit(1)
      .execute();
    const { name, timestamp } = row as { name: string; timestamp: string };
    await db
      .deleteFrom('kysely_migration' as never)
      .where('name' as never, '=', name as never)
      .execute();
    try {
      const answer = await server.request('GET', '/health/ready');
      expect(answer.status).toBe(503);
      const body = errorBody.parse(answer.body);
      expect(body.code).toBe('not_ready');
      expect(body.message).toContain(name);
      expect(answer.headers.get('retry-after')).toBe('5');
      // Liveness does not look at the database: still 200.
      expect((await server.request('GET', '/health')).status).toBe(200);
    } finally {
      await db
        .insertInto('kysely_migration' as never)
        .values({ name, timestamp } as never)
        .execute();
    }
    expect((await server.request('GET', '/health/ready')).status).toBe(200);
  });
});

describe('readiness on postgres when the database goes away', () => {
  it('answers 503 while the database refuses connections, and 200 again once it accepts them', async () => {
    const logs = captureLogs('warn');
    const database = await freshDatabase();
    const server = await startTestServer({
      log: logs.log,
      database: { kind: 'postgres', url: database.url },
    });
    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: database.url.replace(name, 'test') });
    await admin.connect();
    try {
      await admin.query(`alter database ${name} allow_connections false`);
      const others = 'from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()';
      await admin.query(`select pg_terminate_backend(pid) ${others}`, [name]);
      while ((await admin.query(`select 1 ${others}`, [name])).rowCount! > 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const answer = await server.request('GET', '/health/ready');
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({
        code: 'not_ready',
        message: 'The database does not answer.',
      });
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(logs.text()).toContain('readiness: the database does not answer');
      // Nothing of the connection's details reaches the client.
      expect(JSON.stringify(answer.body)).not.toContain('127.0.0.1');
    } finally {
      await admin.query(`alter database ${name} allow_connections true`);
      await admin.end();
    }
    try {
      expect((await server.request('GET', '/health/ready')).status).toBe(200);
    } finally {
      await server.close();
      await database.drop();
    }
  });
});
