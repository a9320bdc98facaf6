import { type Tenant, tenant } from './catalog.ts';
import { freshDatabase } from './postgres.ts';
import { startTestServer, type TestServer } from './server.ts';

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
