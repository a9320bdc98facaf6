import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenApplicationName, openStorage, type Storage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';
import { systemClock } from '../../server/time.ts';
import { TokenAuthenticator } from '../../server/tokens/authenticate.ts';
import { createToken } from '../../server/tokens/create-token.ts';
import { type Instances, startInstances } from '../helpers/instances.ts';
import type { TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * PostgreSQL keeps tokens in each instance's memory while its `LISTEN shopdesk_tokens`
 * session is up (docs/http.md, tokens): a trigger announces any change of tokens or
 * companies with its commit, whoever wrote it, and every instance drops its cache. A
 * "silent" change — made with triggers off (`session_replication_role = replica`), so
 * that no notice goes out — shows whether a request was answered from the cache.
 */

/** Runs SQL on the database as an operator in psql would: its own connection. */
async function psql(url: string, statements: string[], values: unknown[][] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let rows: Record<string, unknown>[] = [];
    for (const [index, statement] of statements.entries()) {
      rows = (await client.query(statement, values[index] ?? [])).rows;
    }
    return rows;
  } finally {
    await client.end();
  }
}

/** Takes the permission to read customers from every token of the company, sending no notice. */
const silentlyNarrow = (url: string, companyId: number) =>
  psql(
    url,
    [
      'set session_replication_role = replica',
      `update tokens set permissions = '["products.read"]' where company_id = $1`,
    ],
    [[], [companyId]],
  );

/** The backend pids of the instances' LISTEN connections (one an instance, every channel). */
const listenerPids = async (url: string) =>
  (
    await psql(
      url,
      [
        `select pid from pg_stat_activity
         where datname = current_database() and application_name = $1`,
      ],
      [[listenApplicationName]],
    )
  ).map((row) => row.pid as number);

describe('the token cache on two PostgreSQL instances', () => {
  let instances: Instances;
  let one: TestServer;
  let two: TestServer;
  let url: string;

  beforeAll(async () => {
    instances = await startInstances('postgres');
    ({ one, two } = instances);
    url = instances.databaseUrl!;
  });
  afterAll(() => instances.close());

  const customers = (server: TestServer, token: string) =>
    server.request('GET', '/customers', { token }).then((answer) => answer.status);

  /** A company and a token that has been read (and cached) by both instances. */
  async function cachedToken() {
    const companyId = await one.createCompany();
    const token = await one.token(companyId, ['customers.read']);
    await waitFor('both instances listening', async () => (await listenerPids(url)).length === 2);
    expect(await customers(one, token)).toBe(200);
    expect(await customers(two, token)).toBe(200);
    return { companyId, token };
  }

  it('answers a known token from memory while listening: a change that sends no notice is not seen', async () => {
    const { companyId, token } = await cachedToken();
    await silentlyNarrow(url, companyId);
    expect(await customers(one, token)).toBe(200);
    expect(await customers(two, token)).toBe(200);
  });

  it('a revocation typed into psql reaches both instances with its notice', async () => {
    const { companyId, token } = await cachedToken();
    await psql(
      url,
      ['update tokens set revoked_at = now()::text where company_id = $1'],
      [[companyId]],
    );
    await waitFor(
      'the revocation on instance one',
      async () => (await customers(one, token)) === 401,
      5000,
    );
    await waitFor(
      'the revocation on instance two',
      async () => (await customers(two, token)) === 401,
      5000,
    );
  });

  it('a LISTEN session lost and opened again drops the cache: a change made meanwhile is seen', async () => {
    const { companyId, token } = await cachedToken();
    const before = await listenerPids(url);
    await psql(
      url,
      [
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and application_name = $1`,
      ],
      [[listenApplicationName]],
    );
    await silentlyNarrow(url, companyId);
    await waitFor('both sessions opened again', async () => {
      const after = await listenerPids(url);
      return after.length === 2 && after.every((pid) => !before.includes(pid));
    });
    // The entry cached before the loss is gone: the change made meanwhile is seen.
    expect(await customers(one, token)).toBe(403);
    expect(await customers(two, token)).toBe(403);
  });
});

describe('TokenAuthenticator on PostgreSQL, listening or not', () => {
  let instances: Instances;
  let storage: Storage;
  let url: string;

  beforeAll(async () => {
    instances = await startInstances('postgres');
    url = instances.databaseUrl!;
    storage = openStorage({ kind: 'postgres', url });
    await migrateToLatest(storage);
  });
  afterAll(async () => {
    await storage.close();
    await instances.close();
  });

  async function issued() {
    const companyId = await instances.one.createCompany();
    const { secret } = await createToken(storage.db, {
      companyId,
      permissions: ['customers.read'],
      name: 'cache',
    });
    return { companyId, secret };
  }

  const permissionsOf = async (auth: TokenAuthenticator, secret: string) => [
    ...((await auth.authenticate(secret))?.permissions ?? []),
  ];

  it('without a LISTEN session nothing is cached: every request reads its token', async () => {
    const auth = new TokenAuthenticator(storage, systemClock);
    const { companyId, secret } = await issued();
    expect(await permissionsOf(auth, secret)).toEqual(['customers.read']);
    await silentlyNarrow(url, companyId);
    expect(await permissionsOf(auth, secret)).toEqual(['products.read']);
  });

  it('listening, the token is kept until a notice (changed) or the session ends', async () => {
    const auth = new TokenAuthenticator(storage, systemClock);
    auth.setListening(true);
    const { companyId, secret } = await issued();
    expect(await permissionsOf(auth, secret)).toEqual(['customers.read']);
    await silentlyNarrow(url, companyId);
    expect(await permissionsOf(auth, secret)).toEqual(['customers.read']);
    auth.changed();
    expect(await permissionsOf(auth, secret)).toEqual(['products.read']);
    await psql(
      url,
      ['update tokens set permissions = \'["customers.read"]\' where company_id = $1'],
      [[companyId]],
    );
    auth.setListening(false);
    expect(await permissionsOf(auth, secret)).toEqual(['customers.read']);
  });

  it('a fresh read (a long-poll after its wait) bypasses the cache', async () => {
    const auth = new TokenAuthenticator(storage, systemClock);
    auth.setListening(true);
    const { companyId, secret } = await issued();
    await auth.authenticate(secret);
    await silentlyNarrow(url, companyId);
    const fresh = await auth.authenticate(secret, { fresh: true });
    expect([...(fresh?.permissions ?? [])]).toEqual(['products.read']);
  });
});
