import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Instances, startInstances } from '../helpers/instances.ts';
import type { TestServer } from '../helpers/server.ts';
import { createJob, integratorToken, registerAgent, type TestAgent } from './helpers.ts';
import { through } from './two-instances.ts';

/**
 * The agents an integrator sees (docs/printing.md, agents for integrators): the list and one
 * agent, `online` within two heartbeat intervals, and `route_online` on a job just queued.
 * On SQLite and on two PostgreSQL instances (agents call one, the integrator the other).
 */
describe.each(dialects)('agents for integrators on %s', (dialect) => {
  let instances: Instances;
  let one: TestServer;
  let two: TestServer;
  let company: number;
  let reader: string;
  let till: TestAgent;
  let office: TestAgent;
  let stranger: TestAgent;

  beforeAll(async () => {
    instances = await startInstances(dialect);
    ({ one, two } = instances);
    company = await one.createCompany();
    reader = await integratorToken(two, company);
    // Registered as "Till …" and renamed below, so that the list's order is by name.
    till = await registerAgent(one, company, ['receipts', 'labels']);
    office = await registerAgent(one, company, []);
    stranger = await registerAgent(one, await one.createCompany(), ['receipts']);
    const rename = (agent: TestAgent, name: string) =>
      agent.call('POST', '/printing/register', {
        uuid: agent.uuid,
        name,
        hostname: `${name.toLowerCase()}-host`,
        platform: 'linux',
        version: '1.2.3',
        printers: [
          { name: 'EPSON', is_default: true },
          { name: 'ZEBRA', is_default: false },
        ],
      });
    expect((await rename(till, 'Balcão')).status).toBe(200);
    expect((await rename(office, 'Escritório')).status).toBe(200);
  });
  afterAll(() => instances.close());

  const get = (path: string) => two.request('GET', path, { token: reader });
  /** Moves the clock of every instance. */
  const advance = (ms: number) => {
    for (const server of new Set([one, two])) server.clock.advance(ms);
  };
  const heartbeatMs = () => one.app.services.config.heartbeatSeconds * 1000;

  it('lists the company’s agents by name, with routes and printers, and nobody else’s', async () => {
    const answer = await get('/printing/agents');
    expect(answer.status).toBe(200);
    expect(answer.body.meta).toMatchObject({ total: 2, current_page: 1, per_page: 15 });
    expect(answer.body.data.map((agent: { id: string }) => agent.id)).toEqual([
      till.uuid,
      office.uuid,
    ]);
    expect(answer.body.data[0]).toMatchObject({
      id: till.uuid,
      name: 'Balcão',
      hostname: 'balcão-host',
      platform: 'linux',
      version: '1.2.3',
      online: true,
      paused: false,
      printers: [
        { name: 'EPSON', is_default: true },
        { name: 'ZEBRA', is_default: false },
      ],
      routes: [
        { name: 'receipts', printer: 'EPSON', enabled: true, options: {} },
        { name: 'labels', printer: 'EPSON', enabled: true, options: {} },
      ],
    });
    expect(answer.body.data[0].last_seen_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(answer.body.data[1].routes).toEqual([]);
    expect(JSON.stringify(answer.body)).not.toContain(stranger.uuid);
  });

  it('is paginated like every list', async () => {
    const first = await get('/printing/agents?per_page=1');
    expect(first.body.data.map((agent: { id: string }) => agent.id)).toEqual([till.uuid]);
    expect(first.body.meta).toMatchObject({ total: 2, last_page: 2, per_page: 1, from: 1, to: 1 });
    expect(first.body.links.next).toBe(`${two.api}/printing/agents?per_page=1&page=2`);
    const second = await get('/printing/agents?per_page=1&page=2');
    expect(second.body.data.map((agent: { id: string }) => agent.id)).toEqual([office.uuid]);
    expect((await get('/printing/agents?per_page=101')).status).toBe(422);
  });

  it('one agent by uuid (in any case); another company’s, an unknown or a malformed one → 404', async () => {
    const answer = await get(`/printing/agents/${till.uuid.toUpperCase()}`);
    expect(answer.status).toBe(200);
    const listed = (await get('/printing/agents')).body.data[0];
    expect(answer.body.data).toEqual(listed);
    for (const uuid of [stranger.uuid, randomUUID(), 'till-1']) {
      const missing = await get(`/printing/agents/${uuid}`);
      expect(missing.status, uuid).toBe(404);
      expect(missing.body.success).toBe(false);
    }
  });

  it('online: a heartbeat within two intervals; the agent’s own config says the same', async () => {
    const online = async (agent: TestAgent) =>
      (await get(`/printing/agents/${agent.uuid}`)).body.data.online;
    expect((await till.call('POST', '/printing/heartbeat', {})).status).toBe(200);
    // Times are stored to the second: a second either side of two intervals, so that the
    // real time these requests take (a wall-clock second may turn meanwhile) cannot matter.
    advance(2 * heartbeatMs() - 1000);
    expect(await online(till)).toBe(true);
    advance(2000);
    expect(await online(till)).toBe(false);
    expect((await till.call('GET', '/printing/config')).body.data.agent.online).toBe(false);
    expect((await through(two, till).call('POST', '/printing/heartbeat', {})).status).toBe(200);
    expect(await online(till)).toBe(true);
    expect((await till.call('GET', '/printing/config')).body.data.agent.online).toBe(true);
  });

  it('paused and printers are what the agent last reported', async () => {
    await till.call('POST', '/printing/heartbeat', {
      paused: true,
      printers: [{ name: 'EPSON TM-T20', is_default: true }],
    });
    const paused = (await get(`/printing/agents/${till.uuid}`)).body.data;
    expect(paused).toMatchObject({
      paused: true,
      online: true,
      printers: [{ name: 'EPSON TM-T20', is_default: true }],
    });
    await till.call('POST', '/printing/heartbeat', { paused: false });
    expect((await get(`/printing/agents/${till.uuid}`)).body.data.paused).toBe(false);
  });

  it('route_online: true only while an online agent that is not paused serves the route', async () => {
    const integrator = await integratorToken(two, company);
    const routeOnline = async (route: string) => {
      const answer = await two.request('POST', '/printing/jobs', {
        token: integrator,
        body: { route, content_type: 'text/plain', content_base64: 'aGk=' },
      });
      expect(answer.status).toBe(201);
      return answer.body.data.route_online;
    };
    await till.call('POST', '/printing/heartbeat', {});
    expect(await routeOnline('receipts')).toBe(true);
    expect(await routeOnline('nobody-serves-this')).toBe(false);

    await till.call('POST', '/printing/heartbeat', { paused: true });
    expect(await routeOnline('receipts')).toBe(false);
    await till.call('POST', '/printing/heartbeat', { paused: false });

    await till.call('PUT', '/printing/routes', {
      routes: [{ name: 'receipts', printer: 'EPSON', enabled: false }],
    });
    expect(await routeOnline('receipts')).toBe(false);
    await till.call('PUT', '/printing/routes', {
      routes: [{ name: 'receipts', printer: 'EPSON' }],
    });
    expect(await routeOnline('receipts')).toBe(true);

    advance(2 * heartbeatMs() + 1000);
    expect(await routeOnline('receipts')).toBe(false);
    // The job is queued all the same: the agent prints it once it is back.
    await till.call('POST', '/printing/heartbeat', {});
    const job = await createJob(two, integrator, { route: 'receipts' });
    expect((job as unknown as { route_online: boolean }).route_online).toBe(true);
  });
});
