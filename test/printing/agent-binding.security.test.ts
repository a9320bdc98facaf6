import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../server/tokens/create-token.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { expectError } from '../http/error-answers.ts';
import { createJob, integratorToken, registerAgent, type TestAgent } from './helpers.ts';

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

/**
 * docs/security.md's promise, tried as a thief who holds one till's bound token and wants
 * another till's documents: every way to another agent's job is refused, header or not.
 */
describe.each(databaseKinds)(
  'a stolen bound token exposes one agent’s jobs, not the shop’s, on %s',
  (kind) => {
    let server: TestServer;
    let company: number;
    let stolen: string;
    let granted: string;
    let integrator: string;
    let other: TestAgent;
    const mine = randomUUID();
    const withGrant = randomUUID();

    /** A job on `route`, claimed by `agent` and then printed (or failed). */
    async function printedBy(agent: TestAgent, route: string, outcome: 'confirm' | 'error') {
      const job = await createJob(server, integrator, { route });
      const claimed = await agent.next();
      expect(claimed.body.data.id).toBe(job.id);
      const body = outcome === 'confirm' ? {} : { message: 'paper jam', code: 'printer_error' };
      expect((await agent.call('POST', `/printing/jobs/${job.id}/${outcome}`, body)).status).toBe(
        200,
      );
      return job.id;
    }

    const bare = (token: string, method: string, path: string, body?: unknown) =>
      server.request(method, path, { token, body });

    beforeAll(async () => {
      server = await startTestServerOn(kind);
      company = await server.createCompany('Two tills');
      integrator = await integratorToken(server, company);
      const db = server.app.services.storage.db;
      stolen = (
        await createToken(db, {
          companyId: company,
          permissions: ['printing.agent'],
          name: 'till 1',
          agentUuid: mine,
        })
      ).secret;
      granted = (
        await createToken(db, {
          companyId: company,
          permissions: ['printing.agent'],
          name: 'till 3',
          agentUuid: withGrant,
          routes: ['labels'],
        })
      ).secret;
      expect((await bare(stolen, 'POST', '/printing/register', registration(mine))).status).toBe(
        201,
      );
      // Its routes were set by IT with an unbound token: the bound token only keeps them.
      const it = await server.token(company, ['printing.agent']);
      const put = await server.request('PUT', '/printing/routes', {
        token: it,
        headers: { 'x-agent-id': mine },
        body: { routes: [{ name: 'receipts', printer: 'EPSON' }] },
      });
      expect(put.status).toBe(200);
      other = await registerAgent(server, company, ['labels']);
    });
    afterAll(() => server?.close());

    it('acts as its agent when X-Agent-Id is left out', async () => {
      const config = await bare(stolen, 'GET', '/printing/config');
      expect(config.status).toBe(200);
      expect(config.body.data.agent.id).toBe(mine);
      const heartbeat = await bare(stolen, 'POST', '/printing/heartbeat', {});
      expect(heartbeat.status).toBe(200);
    });

    it('cannot reprint, retry or read a job another agent printed or failed, header or not', async () => {
      const printed = await printedBy(other, 'labels', 'confirm');
      const failed = await printedBy(other, 'labels', 'error');
      for (const headers of [{}, { 'x-agent-id': mine }] as Record<string, string>[]) {
        for (const [method, path] of [
          ['POST', `/printing/jobs/${printed}/reprint`],
          ['POST', `/printing/jobs/${failed}/reprint`],
          ['POST', `/printing/jobs/${failed}/retry`],
          ['GET', `/printing/jobs/${printed}`],
        ] as const) {
          const answer = await server.request(method, path, { token: stolen, headers });
          expectError(answer, 403, 'forbidden');
          expect(answer.body.message).toMatch(
            new RegExp(
              `bound to the print agent ${mine} and may only act on the jobs that agent claimed`,
            ),
          );
        }
      }
      // The same token allowed to read jobs sees what its own agent printed only.
      const reader = (
        await createToken(server.app.services.storage.db, {
          companyId: company,
          permissions: ['printing.agent', 'printing.jobs.read'],
          name: 'till 1, reader',
          agentUuid: mine,
        })
      ).secret;
      const preview = await bare(reader, 'GET', `/printing/jobs/${printed}/preview?format=raw`);
      expectError(preview, 403, 'forbidden');
      // Nothing was queued for the thief to claim.
      const history = await server.request('GET', '/printing/history?route=labels', {
        token: integrator,
      });
      expect(history.body.data.map((job: { id: number }) => job.id).sort()).toEqual(
        [printed, failed].sort(),
      );
    });

    it('cannot add another route to its agent, so cannot claim that route’s jobs', async () => {
      const job = await createJob(server, integrator, { route: 'labels' });
      const widen = await bare(stolen, 'PUT', '/printing/routes', {
        routes: [
          { name: 'receipts', printer: 'EPSON' },
          { name: 'labels', printer: 'EPSON' },
        ],
      });
      expectError(widen, 403, 'forbidden');
      expect(widen.body.message).toContain('may not give it the route labels');
      // Its routes are as they were, and the labels job waits for the labels till.
      const config = await bare(stolen, 'GET', '/printing/config');
      expect(config.body.data.routes.map((route: { name: string }) => route.name)).toEqual([
        'receipts',
      ]);
      expect((await bare(stolen, 'POST', '/printing/jobs/next', { wait: 0 })).status).toBe(204);
      const claimed = await other.next();
      expect(claimed.body.data.id).toBe(job.id);
      expect((await other.call('POST', `/printing/jobs/${job.id}/confirm`, {})).status).toBe(200);
    });

    it('keeps, changes and drops the routes its agent serves', async () => {
      for (const routes of [
        [{ name: 'receipts', printer: 'OTHER', enabled: false }],
        [],
        // Dropped, a route is no longer its agent's to take back.
      ]) {
        expect((await bare(stolen, 'PUT', '/printing/routes', { routes })).status).toBe(200);
      }
      const back = await bare(stolen, 'PUT', '/printing/routes', {
        routes: [{ name: 'receipts', printer: 'EPSON' }],
      });
      expectError(back, 403, 'forbidden');
    });

    it('takes the routes its token was granted, and no others', async () => {
      expect(
        (await bare(granted, 'POST', '/printing/register', registration(withGrant))).status,
      ).toBe(201);
      const labels = await bare(granted, 'PUT', '/printing/routes', {
        routes: [{ name: 'labels', printer: 'ZEBRA' }],
      });
      expect(labels.status).toBe(200);
      const more = await bare(granted, 'PUT', '/printing/routes', {
        routes: [
          { name: 'labels', printer: 'ZEBRA' },
          { name: 'receipts', printer: 'EPSON' },
        ],
      });
      expectError(more, 403, 'forbidden');
    });

    it('reprints, retries and reads the jobs its own agent printed, and lists only those', async () => {
      const it = await server.token(company, ['printing.agent']);
      await server.request('PUT', '/printing/routes', {
        token: it,
        headers: { 'x-agent-id': mine },
        body: { routes: [{ name: 'receipts', printer: 'EPSON' }] },
      });
      const job = await createJob(server, integrator, { route: 'receipts' });
      expect((await bare(stolen, 'POST', '/printing/jobs/next', { wait: 0 })).body.data.id).toBe(
        job.id,
      );
      const failed = await bare(stolen, 'POST', `/printing/jobs/${job.id}/error`, {
        message: 'paper out',
        code: 'printer_error',
      });
      expect(failed.status).toBe(200);
      expect((await bare(stolen, 'GET', `/printing/jobs/${job.id}`)).status).toBe(200);
      const history = await bare(stolen, 'GET', '/printing/history');
      expect(history.status).toBe(200);
      expect(history.body.data.map((row: { id: number }) => row.id)).toEqual([job.id]);
      const theirs = await bare(stolen, 'GET', `/printing/history?agent_id=${other.uuid}`);
      expectError(theirs, 403, 'forbidden');
      expect((await bare(stolen, 'POST', `/printing/jobs/${job.id}/reprint`)).status).toBe(201);
      expect((await bare(stolen, 'POST', `/printing/jobs/${job.id}/retry`)).status).toBe(200);
    });
  },
);
