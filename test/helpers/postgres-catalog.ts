import { afterAll, beforeAll } from 'vitest';
import { type Tenant, tenant } from './catalog.ts';
import { freshDatabase } from './postgres.ts';
import { type Answer, startTestServer, type TestServer } from './server.ts';

/**
 * The catalogue tests on PostgreSQL: one server on a fresh database of the file's own, two
 * companies, and the first one's warehouses MAIN (its id) and ANNEX. `close` drops it all.
 */
export interface PostgresCatalog {
  server: TestServer;
  acme: Tenant;
  other: Tenant;
  main: number;
  close(): Promise<void>;
}

export async function postgresCatalog(): Promise<PostgresCatalog> {
  const database = await freshDatabase();
  const server = await startTestServer({ database: { kind: 'postgres', url: database.url } });
  const acme = await tenant(server);
  const other = await tenant(server);
  const main = await acme.warehouse('MAIN');
  await acme.warehouse('ANNEX');
  return {
    server,
    acme,
    other,
    main,
    async close() {
      await server.close();
      await database.drop();
    },
  };
}

/** What a catalogue test file on PostgreSQL works with, filled in before its tests. */
export interface PostgresCatalogOfFile extends Omit<PostgresCatalog, 'close'> {
  /** A request as `acme` (or with another token). */
  request(method: string, path: string, body?: unknown, token?: string): Promise<Answer>;
}

/**
 * The file's catalogue on PostgreSQL (`postgresCatalog`), made before its tests and dropped
 * after them: the set-up every catalogue test file on PostgreSQL shares.
 */
export function postgresCatalogOfFile(): PostgresCatalogOfFile {
  let catalog: PostgresCatalog | undefined;
  const of = {} as PostgresCatalogOfFile;
  beforeAll(async () => {
    catalog = await postgresCatalog();
    Object.assign(of, {
      server: catalog.server,
      acme: catalog.acme,
      other: catalog.other,
      main: catalog.main,
    });
  });
  afterAll(async () => {
    await catalog?.close();
  });
  of.request = (method, path, body, token = of.acme.token) =>
    of.server.request(method, path, { token, body });
  return of;
}
