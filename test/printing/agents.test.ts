import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createJob, integratorToken, registerAgent } from './helpers.ts';

const registration = (uuid: string) => ({
  uuid,
  name: 'Front till',
  hostname: 'till-1',
  platform: 'win32',
  version: '1.2.3',
  printers: [
    { name: 'EPSON TM-T20', is_default: true },
    { name: 'Zebra', is_default: false },
  ],
});

describe('print agents', () => {
  let server: TestServer;
  let company: number;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer();
    company = await server.createCompany('Agents Ltd');
    token = await server.token(company, ['printing.agent']);
  });
  afterAll(() => server.close());

  const as = (uuid: string) => ({ token, headers: { 'x-agent-id': uuid } });

  it('register is idempotent per uuid: 201, then 200 with the new details', async () => {
    const uuid = randomUUID();
    const first = await server.request('POST', '/printing/register', {
      token,
      body: registration(uuid),
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('location')).toBe(`${server.api}/printing/config`);
    expect(first.body.data).toMatchObject({
      id: uuid,
      name: 'Front till',
      platform: 'win32',
      paused: false,
      online: true,
      printers: registration(uuid).printers,
    });
    const second = await server.request('POST', '/printing/register', {
      token,
      body: { ...registration(uuid), version: '1.2.4' },
    });
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ id: uuid, version: '1.2.4' });
    expect(second.body.data.created_at).toBe(first.body.data.created_at);
  });

  it('heartbeat records printers and the paused flag; online lasts 3 heartbeat intervals', async () => {
    const uuid = randomUUID();
    await server.request('POST', '/printing/register', { token, body: registration(uuid) });
    const beat = await server.request('POST', '/printing/heartbeat', {
      ...as(uuid),
      body: { paused: true, printers: [{ name: 'Only one', is_default: true }] },
    });
    expect(beat.status).toBe(200);
    expect(beat.body.data).toMatchObject({
      extended_job_ids: [],
      released_job_ids: [],
      lease_expires_at: null,
    });
    let config = await server.request('GET', '/printing/config', as(uuid));
    expect(config.body.data.agent).toMatchObject({
      paused: true,
      online: true,
      printers: [{ name: 'Only one', is_default: true }],
    });
    const heartbeat = server.app.services.config.heartbeatSeconds;
    server.clock.advance((3 * heartbeat + 1) * 1000);
    config = await server.request('GET', '/printing/config', as(uuid));
    expect(config.body.data.agent.online).toBe(false);
    await server.request('POST', '/printing/heartbeat', as(uuid));
    config = await server.request('GET', '/printing/config', as(uuid));
    expect(config.body.data.agent.online).toBe(true);
  });

  it('config: company, saved routes, route names in use and the intervals', async () => {
    const agent = await registerAgent(server, company, []);
    const put = await agent.call('PUT', '/printing/routes', {
      routes: [
        { name: 'receipts', printer: 'EPSON', options: { paper: 'a6' } },
        { name: 'labels', printer: 'Zebra', enabled: false },
      ],
    });
    expect(put.status).toBe(200);
    expect(put.body.data.routes).toEqual([
      { name: 'receipts', printer: 'EPSON', enabled: true, options: { paper: 'a6' } },
      { name: 'labels', printer: 'Zebra', enabled: false, options: {} },
    ]);
    await createJob(server, await integratorToken(server, company), { route: 'kitchen' });
    const config = await agent.call('GET', '/printing/config');
    expect(config.status).toBe(200);
    const { leaseSeconds, heartbeatSeconds, longPollWaitSeconds } = server.app.services.config;
    expect(config.body.data).toMatchObject({
      company: { id: company, name: 'Agents Ltd' },
      agent: { id: agent.uuid },
      routes: put.body.data.routes,
      intervals: {
        long_poll_wait_seconds: longPollWaitSeconds,
        heartbeat_seconds: heartbeatSeconds,
        lease_seconds: leaseSeconds,
      },
    });
    expect(config.body.data.route_names).toEqual(
      expect.arrayContaining(['kitchen', 'labels', 'receipts']),
    );
    // PUT replaces: what is left out is gone.
    await agent.call('PUT', '/printing/routes', { routes: [{ name: 'a4', printer: 'HP' }] });
    const after = await agent.call('GET', '/printing/config');
    expect(after.body.data.routes.map((r: { name: string }) => r.name)).toEqual(['a4']);
  });

  it('routes: backup printers are kept in order; a route without them reads as before', async () => {
    const agent = await registerAgent(server, company, []);
    const put = await agent.call('PUT', '/printing/routes', {
      routes: [
        { name: 'receipts', printer: 'Front-1', backup_printers: ['Front-2', 'Office'] },
        { name: 'labels', printer: 'Zebra', backup_printers: [] },
      ],
    });
    expect(put.status).toBe(200);
    expect(put.body.data.routes).toEqual([
      {
        name: 'receipts',
        printer: 'Front-1',
        backup_printers: ['Front-2', 'Office'],
        enabled: true,
        options: {},
      },
      { name: 'labels', printer: 'Zebra', enabled: true, options: {} },
    ]);
    const config = await agent.call('GET', '/printing/config');
    expect(config.body.data.routes).toEqual(put.body.data.routes);
  });

  it('wait_reason: a route waits only when none of its printers, backups included, can print', async () => {
    const other = await server.createCompany('Backup Printers Ltd');
    const agent = await registerAgent(server, other, []);
    await agent.call('PUT', '/printing/routes', {
      routes: [{ name: 'receipts', printer: 'Front-1', backup_printers: ['Front-2'] }],
    });
    const beat = (front2: string) =>
      agent.call('POST', '/printing/heartbeat', {
        printers: [
          { name: 'Front-1', state: 'stopped', reasons: ['media-empty-error'] },
          { name: 'Front-2', state: front2 },
        ],
      });
    const integrator = await integratorToken(server, other);
    await beat('idle');
    const served = await createJob(server, integrator, { route: 'receipts' });
    expect(served.wait_reason).toBeNull();
    await beat('offline');
    const waits = await createJob(server, integrator, { route: 'receipts' });
    expect(waits.wait_reason).toEqual({
      code: 'printer_out_of_paper',
      message: 'printer Front-1 is out of paper',
    });
  });

  it('config: route names offer routes with jobs waiting, not every route ever printed on', async () => {
    const other = await server.createCompany('Route Names Ltd');
    const agent = await registerAgent(server, other, ['old']);
    const integrator = await integratorToken(server, other);
    await createJob(server, integrator, { route: 'old' });
    const claimed = await agent.next();
    expect(claimed.body.data.route).toBe('old');
    await agent.call('POST', `/printing/jobs/${claimed.body.data.id}/confirm`, {});
    await agent.call('PUT', '/printing/routes', {
      routes: [{ name: 'receipts', printer: 'EPSON' }],
    });
    await createJob(server, integrator, { route: 'kitchen' });
    await createJob(server, integrator, { route: 'bar' });
    const config = await agent.call('GET', '/printing/config');
    expect(config.body.data.route_names).toEqual(['bar', 'kitchen', 'receipts']);
  });

  it('X-Agent-Id missing → 400, malformed → 400, not registered → 409', async () => {
    const missing = await server.request('GET', '/printing/config', { token });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('X-Agent-Id');
    const malformed = await server.request('GET', '/printing/config', as('not-a-uuid'));
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toContain('UUID');
    const unknown = await server.request('POST', '/printing/jobs/next', {
      ...as(randomUUID()),
      body: { wait: 0 },
    });
    expect(unknown.status).toBe(409);
    expect(unknown.body.message).toContain('register');
  });

  describe.each<[string, string, unknown, string]>([
    ['POST', '/printing/register', { ...registration('nope'), uuid: 'nope' }, 'uuid'],
    ['POST', '/printing/register', { uuid: randomUUID() }, 'name'],
    ['PUT', '/printing/routes', { routes: [{ name: 'Bad Name', printer: 'x' }] }, 'routes.0.name'],
    [
      'PUT',
      '/printing/routes',
      {
        routes: [
          { name: 'a', printer: 'x' },
          { name: 'a', printer: 'y' },
        ],
      },
      'routes.1.name',
    ],
    [
      'PUT',
      '/printing/routes',
      { routes: [{ name: 'a', printer: 'x', options: { ink: 'red' } }] },
      'routes.0.options.ink',
    ],
    [
      'PUT',
      '/printing/routes',
      { routes: [{ name: 'a', printer: 'x', backup_printers: ['y', 'x'] }] },
      'routes.0.backup_printers.1',
    ],
    [
      'PUT',
      '/printing/routes',
      { routes: [{ name: 'a', printer: 'x', backup_printers: ['y', 'y'] }] },
      'routes.0.backup_printers.1',
    ],
    [
      'PUT',
      '/printing/routes',
      {
        routes: [
          { name: 'a', printer: 'x', backup_printers: ['1', '2', '3', '4', '5', '6', '7', '8'] },
        ],
      },
      'routes.0.backup_printers',
    ],
    ['POST', '/printing/jobs/next', { wait: 31 }, 'wait'],
    ['POST', '/printing/heartbeat', { held_job_ids: [0] }, 'held_job_ids.0'],
    ['POST', '/printing/jobs/1/error', {}, 'message'],
  ])('%s %s with %j', (method, path, body, field) => {
    it(`answers 422 on ${field}`, async () => {
      const agent = await registerAgent(server, company, []);
      const answer = await agent.call(method, path, body);
      expect(answer.status).toBe(422);
      expect(Object.keys(answer.body.errors)).toContain(field);
    });
  });
});

describe('print history', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('pages newest first and filters by status, route, agent and since', async () => {
    const company = await server.createCompany();
    const reader = await integratorToken(server, company);
    const agent = await registerAgent(server, company, ['receipts']);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createJob(server, reader)).id);
    server.clock.advance(60_000);
    const since = new Date(server.clock.now().getTime() - 1000).toISOString();
    ids.push((await createJob(server, reader, { route: 'labels' })).id);
    await agent.next();
    await agent.call('POST', `/printing/jobs/${ids[0]}/confirm`);

    const page = await server.request('GET', '/printing/history?per_page=2', { token: reader });
    expect(page.status).toBe(200);
    expect(page.body.data.map((j: { id: number }) => j.id)).toEqual([ids[5], ids[4]]);
    expect(page.body.meta).toMatchObject({ total: 6, per_page: 2, last_page: 3, current_page: 1 });
    expect(page.body.links.next).toContain('page=2');

    const filter = async (query: string) =>
      (await server.request('GET', `/printing/history?${query}`, { token: reader })).body.data.map(
        (j: { id: number }) => j.id,
      );
    expect(await filter('status=printed')).toEqual([ids[0]]);
    expect(await filter('route=labels')).toEqual([ids[5]]);
    expect(await filter(`agent_id=${agent.uuid}`)).toEqual([ids[0]]);
    expect(await filter(`since=${encodeURIComponent(since)}`)).toEqual([ids[5]]);
    expect(await filter('status=queued&route=receipts')).toEqual([ids[4], ids[3], ids[2], ids[1]]);
    const bad = await server.request('GET', '/printing/history?status=lost', { token: reader });
    expect(bad.status).toBe(422);
  });
});
