import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Permission } from '../../shared/permissions.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createJob, integratorToken, registerAgent, sampleText } from './helpers.ts';

describe('print queue permissions', () => {
  let server: TestServer;
  let company: number;
  let agentUuid: string;
  let jobId: number;
  const tokens: Partial<Record<Permission, string>> = {};

  beforeAll(async () => {
    server = await startTestServer();
    company = await server.createCompany();
    for (const permission of [
      'printing.agent',
      'printing.jobs.create',
      'printing.jobs.read',
      'customers.read',
    ] as const) {
      tokens[permission] = await server.token(company, [permission]);
    }
    agentUuid = (await registerAgent(server, company, ['receipts'], tokens['printing.agent'])).uuid;
    jobId = (await createJob(server, tokens['printing.jobs.create']!)).id;
  });
  afterAll(() => server.close());

  const agentRoutes: [string, string, unknown?][] = [
    [
      'POST',
      '/printing/register',
      { uuid: randomUUID(), name: 'a', hostname: 'h', platform: 'linux', version: '1' },
    ],
    ['POST', '/printing/heartbeat', {}],
    ['GET', '/printing/config'],
    ['PUT', '/printing/routes', { routes: [] }],
    ['POST', '/printing/jobs/next', { wait: 0 }],
    ['POST', '/printing/jobs/1/confirm'],
    ['POST', '/printing/jobs/1/error', { message: 'x' }],
  ];

  describe.each(['printing.jobs.create', 'printing.jobs.read', 'customers.read'] as const)(
    'a token with only %s',
    (permission) => {
      it.each(agentRoutes)(
        'is refused %s %s with 403 naming printing.agent',
        async (method, path, body) => {
          const answer = await server.request(method, path, {
            token: tokens[permission],
            body,
            headers: { 'x-agent-id': agentUuid },
          });
          expect(answer.status).toBe(403);
          expect(answer.body.message).toContain('printing.agent');
        },
      );
    },
  );

  describe.each(['printing.jobs.read', 'customers.read'] as const)(
    'a token with only %s',
    (permission) => {
      it.each(['retry', 'reprint'])(
        'is refused POST /printing/jobs/1/%s with 403 naming printing.agent or printing.jobs.create',
        async (action) => {
          const answer = await server.request('POST', `/printing/jobs/1/${action}`, {
            token: tokens[permission],
          });
          expect(answer.status).toBe(403);
          expect(answer.body.message).toContain('printing.agent or printing.jobs.create');
        },
      );
    },
  );

  it.each(['printing.agent', 'printing.jobs.read', 'customers.read'] as const)(
    'POST /printing/jobs/1/cancel needs printing.jobs.create: %s gets 403',
    async (permission) => {
      const answer = await server.request('POST', '/printing/jobs/1/cancel', {
        token: tokens[permission],
        headers: { 'x-agent-id': agentUuid },
      });
      expect(answer.status).toBe(403);
      expect(answer.body.message).toContain('printing.jobs.create');
    },
  );

  it.each(['printing.agent', 'printing.jobs.create', 'customers.read'] as const)(
    'GET /printing/agents needs printing.jobs.read: %s gets 403',
    async (permission) => {
      for (const path of ['/printing/agents', `/printing/agents/${agentUuid}`]) {
        const answer = await server.request('GET', path, {
          token: tokens[permission],
          headers: { 'x-agent-id': agentUuid },
        });
        expect(answer.status).toBe(403);
        expect(answer.body.message).toContain('printing.jobs.read');
      }
    },
  );

  it.each(['printing.agent', 'printing.jobs.read', 'customers.read'] as const)(
    'POST /printing/jobs needs printing.jobs.create: %s gets 403',
    async (permission) => {
      const answer = await server.request('POST', '/printing/jobs', {
        token: tokens[permission],
        body: { route: 'receipts', content_type: 'text/plain', content_base64: sampleText },
        headers: { 'x-agent-id': agentUuid },
      });
      expect(answer.status).toBe(403);
      expect(answer.body.message).toContain('printing.jobs.create');
    },
  );

  it.each([
    ['GET', () => `/printing/jobs/${jobId}`],
    ['GET', () => '/printing/history'],
  ])(
    '%s %s accepts printing.agent or printing.jobs.read, not printing.jobs.create',
    async (method, path) => {
      const asReader = await server.request(method, path(), {
        token: tokens['printing.jobs.read'],
      });
      expect(asReader.status).toBe(200);
      const asAgent = await server.request(method, path(), {
        token: tokens['printing.agent'],
        headers: { 'x-agent-id': agentUuid },
      });
      expect(asAgent.status).toBe(200);
      const asCreator = await server.request(method, path(), {
        token: tokens['printing.jobs.create'],
      });
      expect(asCreator.status).toBe(403);
      expect(asCreator.body.message).toContain('printing.agent or printing.jobs.read');
    },
  );

  it('answers 401 without a token', async () => {
    const answer = await server.request('POST', '/printing/jobs/next', { body: { wait: 0 } });
    expect(answer.status).toBe(401);
  });
});

describe('tenant isolation', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("an agent of company B never sees, claims or reports company A's jobs", async () => {
    const a = await server.createCompany('A');
    const b = await server.createCompany('B');
    const integratorA = await integratorToken(server, a);
    const agentA = await registerAgent(server, a, ['receipts']);
    const agentB = await registerAgent(server, b, ['receipts']);
    const job = await createJob(server, integratorA);

    expect((await agentB.next()).status).toBe(204);
    expect((await agentB.call('GET', `/printing/jobs/${job.id}`)).status).toBe(404);
    const history = await agentB.call('GET', '/printing/history');
    expect(history.body.data).toEqual([]);
    expect(history.body.meta.total).toBe(0);

    expect((await agentA.next()).body.data.id).toBe(job.id);
    for (const action of ['confirm', 'retry', 'reprint']) {
      const answer = await agentB.call('POST', `/printing/jobs/${job.id}/${action}`);
      expect(answer.status).toBe(404);
    }
    const error = await agentB.call('POST', `/printing/jobs/${job.id}/error`, { message: 'x' });
    expect(error.status).toBe(404);
    const readerB = await integratorToken(server, b);
    const read = await server.request('GET', `/printing/jobs/${job.id}`, { token: readerB });
    expect(read.status).toBe(404);
    expect(JSON.stringify(read.body)).not.toContain(job.sha256);

    const still = await server.request('GET', `/printing/jobs/${job.id}`, { token: integratorA });
    expect(still.body.data).toMatchObject({ status: 'claimed', agent_id: agentA.uuid });
  });

  it("an agent's uuid used with another company's token is refused", async () => {
    const a = await server.createCompany('A2');
    const b = await server.createCompany('B2');
    const agentA = await registerAgent(server, a, ['receipts']);
    const tokenB = await server.token(b, ['printing.agent']);
    const config = await server.request('GET', '/printing/config', {
      token: tokenB,
      headers: { 'x-agent-id': agentA.uuid },
    });
    expect(config.status).toBe(409);
    const again = await server.request('POST', '/printing/register', {
      token: tokenB,
      body: { uuid: agentA.uuid, name: 'x', hostname: 'h', platform: 'linux', version: '1' },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('another company');
  });
});
