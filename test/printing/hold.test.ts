import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrinterInfo } from '../../shared/printing.ts';
import { dialects, type Instances, startInstances } from '../helpers/instances.ts';
import type { TestServer } from '../helpers/server.ts';
import { createJob, integratorToken, registerAgent, type TestAgent } from './helpers.ts';
import { through } from './two-instances.ts';

/**
 * Hold, don't fail (docs/printing.md, "Why a job waits"): an agent claims only on the routes
 * it names, gives a held job back unprinted, and every job read says why it waits — on SQLite
 * and on two PostgreSQL instances (what one instance learns, the other says).
 */

const paperOut: PrinterInfo = {
  name: 'EPSON',
  is_default: true,
  state: 'stopped',
  reasons: ['paused'],
  accepting_jobs: true,
  message: 'Paper out',
};
const ready: PrinterInfo = { ...paperOut, state: 'idle', reasons: [], message: null };

describe.each(dialects)('hold, not fail, on %s', (dialect) => {
  let instances: Instances;
  let one: TestServer;
  let two: TestServer;
  let company: number;
  let integrator: string;

  beforeAll(async () => {
    instances = await startInstances(dialect);
    ({ one, two } = instances);
    company = await one.createCompany();
    integrator = await integratorToken(two, company);
  });
  afterAll(() => instances?.close());

  /** The job as an integrator reads it through instance two. */
  async function read(id: number) {
    const answer = await two.request('GET', `/printing/jobs/${id}`, { token: integrator });
    expect(answer.status).toBe(200);
    return answer.body.data;
  }

  const printers = (agent: TestAgent, list: PrinterInfo[]) =>
    agent.call('POST', '/printing/heartbeat', { printers: list });

  it('claims only on the routes the agent names, and on all when it names none', async () => {
    const agent = await registerAgent(one, company, ['named-a', 'named-b']);
    const onB = await createJob(two, integrator, { route: 'named-b', priority: 9 });
    const onA = await createJob(two, integrator, { route: 'named-a' });
    const named = await agent.call('POST', '/printing/jobs/next', { wait: 0, routes: ['named-a'] });
    expect(named.status).toBe(200);
    expect(named.body.data.id).toBe(onA.id);
    const nothing = await through(two, agent).call('POST', '/printing/jobs/next', {
      routes: ['named-a', 'not-its-route'],
    });
    expect(nothing.status).toBe(204);
    const all = await agent.next();
    expect(all.body.data.id).toBe(onB.id);
    const empty = await agent.call('POST', '/printing/jobs/next', { routes: [] });
    expect(empty.status).toBe(422);
  });

  it('a held job given back is queued again under its id, says why, and is claimed again', async () => {
    const agent = await registerAgent(one, company, ['giveback']);
    const other = await registerAgent(one, company, ['giveback']);
    const job = await createJob(two, integrator, { route: 'giveback' });
    expect((await agent.next()).body.data.id).toBe(job.id);
    const reason = { code: 'printer_out_of_paper', message: 'printer EPSON is out of paper' };
    expect(
      (await other.call('POST', `/printing/jobs/${job.id}/release`, reason)).status,
      'only its holder',
    ).toBe(409);
    const released = await through(two, agent).call(
      'POST',
      `/printing/jobs/${job.id}/release`,
      reason,
    );
    expect(released.status).toBe(200);
    expect(released.body.data).toMatchObject({
      id: job.id,
      status: 'queued',
      agent_id: null,
      attempts: 1,
      error: null,
    });
    expect((await agent.call('POST', `/printing/jobs/${job.id}/release`, reason)).status).toBe(409);
    const detail = await read(job.id);
    expect(detail.events.map((event: { to: string }) => event.to)).toEqual([
      'queued',
      'claimed',
      'queued',
    ]);
    expect(detail.events[2]).toMatchObject({
      from: 'claimed',
      agent_id: agent.uuid,
      message: 'given back unprinted (printer_out_of_paper): printer EPSON is out of paper',
    });
    const again = await other.next();
    expect(again.body.data).toMatchObject({ id: job.id, attempts: 2 });
  });

  it('expires a job held past the hold limit (24 h by default) by the sweep, once, and a retry holds it 24 h again', async () => {
    const agent = await registerAgent(one, company, ['held-long']);
    await printers(agent, [paperOut]);
    const start = one.clock.now();
    const job = await createJob(two, integrator, { route: 'held-long' });
    const limit = Date.parse(job.expires_at!) - Date.parse(job.created_at);
    expect(limit).toBe(24 * 3600_000);
    // Its own expires_in wins over the hold limit.
    const own = await createJob(two, integrator, { route: 'held-long', expires_in: 60 });
    expect(Date.parse(own.expires_at!) - Date.parse(own.created_at)).toBe(60_000);

    for (const server of new Set([one, two])) server.clock.advance(24 * 3600_000 - 60_000);
    // Past the notice threshold (15 min) long ago: announced held, once, by one instance.
    const [firstHeld, secondHeld] = await Promise.all([
      one.app.services.printing.sweep(),
      two.app.services.printing.sweep(),
    ]);
    expect([...firstHeld.held, ...secondHeld.held].filter((id) => id === job.id)).toHaveLength(1);
    expect((await one.app.services.printing.sweep()).held).not.toContain(job.id);
    expect((await read(job.id)).status).toBe('queued');
    for (const server of new Set([one, two])) server.clock.advance(61_000);
    const [first, second] = await Promise.all([
      one.app.services.printing.sweep(),
      two.app.services.printing.sweep(),
    ]);
    // Each instance sweeps; the job expires once.
    expect([...first.expired, ...second.expired].filter((id) => id === job.id)).toHaveLength(1);
    const expired = await read(job.id);
    expect(expired).toMatchObject({ status: 'expired', wait_reason: null });
    expect(expired.events.map((event: { to: string }) => event.to)).toEqual(['queued', 'expired']);
    expect(Date.parse(expired.updated_at)).toBeGreaterThanOrEqual(start.getTime() + limit);

    const retried = await two.request('POST', `/printing/jobs/${job.id}/retry`, {
      token: integrator,
    });
    expect(retried.status).toBe(200);
    const renewed = retried.body.data;
    expect(Date.parse(renewed.expires_at) - Date.parse(renewed.updated_at)).toBe(24 * 3600_000);
  });

  it('an agent that signs off is offline at once on every instance, its printers unknown, until its next heartbeat', async () => {
    const agent = await registerAgent(one, company, ['signing-off']);
    await printers(agent, [paperOut]);
    const job = await createJob(two, integrator, { route: 'signing-off' });
    expect((await agent.call('POST', '/printing/offline')).status).toBe(204);
    const listed = await two.request('GET', `/printing/agents/${agent.uuid}`, {
      token: integrator,
    });
    expect(listed.body.data).toMatchObject({ online: false });
    expect(listed.body.data.printers).toEqual([
      {
        name: 'EPSON',
        is_default: true,
        state: 'unknown',
        reasons: [],
        accepting_jobs: null,
        message: null,
        last_known: {
          state: 'stopped',
          reasons: ['paused'],
          accepting_jobs: true,
          message: 'Paper out',
          at: listed.body.data.last_seen_at,
        },
      },
    ]);
    expect((await read(job.id)).wait_reason?.code).toBe('no_agent_online');
    // Twice is harmless.
    expect((await through(two, agent).call('POST', '/printing/offline')).status).toBe(204);
    await printers(agent, [ready]);
    const back = await two.request('GET', `/printing/agents/${agent.uuid}`, { token: integrator });
    expect(back.body.data).toMatchObject({ online: true, printers: [{ state: 'idle' }] });
    expect(back.body.data.printers[0].last_known).toBeUndefined();
    expect((await read(job.id)).wait_reason).toBeNull();
  });

  it('says why a queued job waits: no agent, none online, paused, the printer; null once it can print', async () => {
    const nobody = await createJob(two, integrator, { route: 'reasons' });
    expect(nobody.wait_reason).toEqual({
      code: 'no_agent_for_route',
      message: 'no print agent serves route reasons',
    });
    expect((await read(nobody.id)).wait_reason?.code).toBe('no_agent_for_route');

    const agent = await registerAgent(one, company, ['reasons']);
    await printers(agent, [paperOut]);
    expect(await read(nobody.id)).toMatchObject({
      status: 'queued',
      wait_reason: {
        code: 'printer_out_of_paper',
        message: 'printer EPSON is out of paper: Paper out',
      },
    });
    const listed = await two.request('GET', '/printing/history?route=reasons', {
      token: integrator,
    });
    expect(listed.body.data[0].wait_reason.code).toBe('printer_out_of_paper');
    const created = await createJob(one, integrator, { route: 'reasons' });
    expect(created).toMatchObject({ route_online: true });
    expect(created.wait_reason?.code).toBe('printer_out_of_paper');

    await agent.call('POST', '/printing/heartbeat', { paused: true });
    expect((await read(nobody.id)).wait_reason?.code).toBe('agent_paused');
    await agent.call('POST', '/printing/heartbeat', { paused: false, printers: [ready] });
    expect((await read(nobody.id)).wait_reason).toBeNull();

    await printers(agent, [{ ...ready, name: 'OTHER' }]);
    expect((await read(nobody.id)).wait_reason?.code).toBe('printer_misconfigured');
    await printers(agent, [{ ...ready, state: 'stopped', reasons: ['media-jam-error'] }]);
    expect((await read(nobody.id)).wait_reason?.code).toBe('printer_paper_jam');
    await printers(agent, [{ ...ready, state: 'stopped', reasons: ['cover-open'] }]);
    expect((await read(nobody.id)).wait_reason?.code).toBe('printer_cover_open');
    await printers(agent, [{ ...ready, state: 'offline' }]);
    expect((await read(nobody.id)).wait_reason?.code).toBe('printer_offline');
    await printers(agent, [{ ...ready, accepting_jobs: false }]);
    expect((await read(nobody.id)).wait_reason?.code).toBe('printer_stopped');
    // A second agent on the route whose printer can print: nothing stops the job.
    const second = await registerAgent(two, company, ['reasons']);
    await printers(second, [ready]);
    expect((await read(nobody.id)).wait_reason).toBeNull();
    // And a job created now, whichever of the two the create looks at first.
    const either = await createJob(two, integrator, { route: 'reasons' });
    expect(either).toMatchObject({ route_online: true, wait_reason: null });

    // Past the online interval, neither is online.
    one.clock.advance(3600_000);
    if (two !== one) two.clock.advance(3600_000);
    expect((await read(nobody.id)).wait_reason?.code).toBe('no_agent_online');
    // A job not queued has no reason.
    const claimedBy = await registerAgent(one, company, ['reasons']);
    const claimed = await claimedBy.next();
    expect((await read(claimed.body.data.id)).wait_reason).toBeNull();
  });
});
