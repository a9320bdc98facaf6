import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, postgresUrlOf, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { ok, tokenByCli } from '../helpers/shopdesk-cli.ts';

/**
 * `token create --agent UUID --routes r1,r2`: the routes a bound token may give its agent
 * beyond those it serves (docs/security.md, "Bound tokens"), on both databases, and
 * `token list` with its header row, as a running server on the same database sees them.
 */
describe.each(databaseKinds)('bound tokens from the command line, on %s', (kind) => {
  let server: TestServer;
  let database: string[];
  let company: string;

  beforeAll(async () => {
    server = await startTestServerOn(kind);
    database =
      kind === 'sqlite' ? ['--db', server.dbFile] : ['--database-url', postgresUrlOf(server)];
    company = String(await server.createCompany('Tills'));
  });
  afterAll(() => server?.close());

  it('grants the routes --routes names, and no others', async () => {
    const uuid = randomUUID();
    const token = await tokenByCli(
      company,
      'printing.agent',
      '--name',
      'till 3',
      '--agent',
      uuid,
      '--routes',
      'receipts,labels',
      ...database,
    );
    const list = (await ok('token', 'list', '--company', company, ...database)).split('\n');
    expect(list[0]).toBe('ID\tNAME\tSTATE\tPERMISSIONS\tAGENT\tROUTES');
    expect(list.find((line) => line.includes('till 3'))).toMatch(
      new RegExp(`\\tactive\\tprinting\\.agent\\t${uuid}\\treceipts,labels$`),
    );

    const as = (method: string, path: string, body: unknown) =>
      server.request(method, path, { token, body });
    const registration = {
      uuid,
      name: 'Till',
      hostname: 'till-3',
      platform: 'linux',
      version: '0.1.0',
    };
    expect((await as('POST', '/printing/register', registration)).status).toBe(201);
    const route = (name: string) => ({ name, printer: 'EPSON' });
    expect((await as('PUT', '/printing/routes', { routes: [route('receipts')] })).status).toBe(200);
    const more = await as('PUT', '/printing/routes', { routes: [route('kitchen')] });
    expect(more.status).toBe(403);
    expect(more.body.message).toContain('may not give it the route kitchen');
  });

  it('grants nothing without --routes: the agent keeps what it serves', async () => {
    const uuid = randomUUID();
    const token = await tokenByCli(company, 'printing.agent', '--agent', uuid, ...database);
    const list = await ok('token', 'list', '--company', company, ...database);
    expect(list).toMatch(new RegExp(`\\t${uuid}\\t-$`, 'm'));
    const registration = {
      uuid,
      name: 'Till',
      hostname: 'till-4',
      platform: 'linux',
      version: '0.1.0',
    };
    await server.request('POST', '/printing/register', { token, body: registration });
    const put = await server.request('PUT', '/printing/routes', {
      token,
      body: { routes: [{ name: 'receipts', printer: 'EPSON' }] },
    });
    expect(put.status).toBe(403);
  });
});
