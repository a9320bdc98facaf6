import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../server/tokens/create-token.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { expectError } from '../http/error-answers.ts';

/**
 * A printing.agent token acts as any agent of its company, unless it is bound to one
 * (`shopdesk token create --agent UUID`): then every other agent uuid is refused with 403,
 * where X-Agent-Id is read and on registration (docs/security.md, agent tokens).
 */

const registration = (uuid: string) => ({
  uuid,
  name: 'Till',
  hostname: 'till-1',
  platform: 'linux',
  version: '0.1.0',
  printers: [{ name: 'EPSON', is_default: true }],
});

describe.each(databaseKinds)('on %s', (kind) => {
  let server: TestServer;
  let bound: string;
  let unbound: string;
  const mine = randomUUID();
  const other = randomUUID();

  beforeAll(async () => {
    server = await startTestServerOn(kind);
    const company = await server.createCompany('Bound Co');
    const storage = server.app.services.storage;
    const issued = await createToken(storage.db, {
      companyId: company,
      permissions: ['printing.agent'],
      name: 'till 1 only',
      // Stored lower-case, whatever the case given.
      agentUuid: mine.toUpperCase(),
    });
    bound = issued.secret;
    unbound = await server.token(company, ['printing.agent']);
  });
  afterAll(() => server?.close());

  const as = (token: string, uuid: string) => ({ token, headers: { 'x-agent-id': uuid } });

  it('registers the agent it is bound to', async () => {
    const answer = await server.request('POST', '/printing/register', {
      token: bound,
      body: registration(mine),
    });
    expect(answer.status).toBe(201);
  });

  it('refuses to register another agent (403)', async () => {
    const answer = await server.request('POST', '/printing/register', {
      token: bound,
      body: registration(other),
    });
    expectError(answer, 403, 'forbidden');
    expect(answer.body.message).toBe(
      `This token is bound to the print agent ${mine} and cannot act as agent ${other}.`,
    );
  });

  it('acts as its agent, the uuid in any letter case', async () => {
    for (const uuid of [mine, mine.toUpperCase()]) {
      const answer = await server.request('GET', '/printing/config', as(bound, uuid));
      expect(answer.status).toBe(200);
      expect(answer.body.data.agent.id).toBe(mine);
    }
  });

  it('refuses X-Agent-Id of another agent on every agent route, registered or not', async () => {
    // The other agent exists: an unbound token of the company registers it.
    const registered = await server.request('POST', '/printing/register', {
      token: unbound,
      body: registration(other),
    });
    expect(registered.status).toBe(201);
    for (const [method, path, body] of [
      ['GET', '/printing/config', undefined],
      ['POST', '/printing/heartbeat', {}],
      ['PUT', '/printing/routes', { routes: [] }],
      ['POST', '/printing/jobs/next', { wait: 0 }],
      ['POST', '/printing/jobs/1/confirm', {}],
      ['GET', '/printing/history', undefined],
    ] as const) {
      const answer = await server.request(method, path, { ...as(bound, other), body });
      expectError(answer, 403, 'forbidden');
    }
    const unknown = await server.request('GET', '/printing/config', as(bound, randomUUID()));
    expectError(unknown, 403, 'forbidden');
  });

  it('reads the history without X-Agent-Id, as any agent token may', async () => {
    expect((await server.request('GET', '/printing/history', { token: bound })).status).toBe(200);
  });

  it('leaves an unbound token free to act as any agent of its company', async () => {
    for (const uuid of [mine, other]) {
      const answer = await server.request('GET', '/printing/config', as(unbound, uuid));
      expect(answer.status).toBe(200);
    }
  });
});
