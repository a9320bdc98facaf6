import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Instances, startInstances } from '../helpers/instances.ts';
import { count, sentDuring } from '../helpers/pg-sent.ts';
import { CloudPrntPrinter } from '../helpers/printer-simulators/cloudprnt.ts';
import type { TestServer } from '../helpers/server.ts';
import { integratorToken, registerAgent } from '../printing/helpers.ts';
import { addPrinterByCli, queueOn, readJob } from './helpers.ts';

/**
 * When a printer that polls ShopDesk itself is online (docs/cloudprnt.md, "Online"): until it
 * has not polled for three of its polling intervals, two heartbeat intervals (30 s) at least;
 * an agent keeps the two heartbeat intervals. The listing, a create's `route_online`, a
 * waiting job's reason and the offline sweep agree. On SQLite and on PostgreSQL with two
 * instances (the clocks of both moved together).
 */
describe.each(dialects)('presence of a printer member (%s)', (dialect) => {
  let instances: Instances;
  let company: number;
  let integrator: string;
  let routeNumber = 0;

  beforeAll(async () => {
    instances = await startInstances(dialect);
    company = await instances.one.createCompany();
    integrator = await integratorToken(instances.one, company);
  });
  afterAll(() => instances.close());

  const servers = () => [...new Set([instances.one, instances.two])];
  const advance = (seconds: number) => {
    for (const server of servers()) server.clock.advance(seconds * 1000);
  };

  /** A CloudPRNT printer that answers `GetPollInterval` with `pollIntervalSeconds`. */
  async function addPrinter(pollIntervalSeconds: number) {
    const route = `presence-${++routeNumber}`;
    const name = `Poller ${routeNumber}`;
    const values = await addPrinterByCli(instances, company, route, { name });
    const printer = new CloudPrntPrinter({
      url: `${instances.one.api}/cloudprnt`,
      user: values.USER!,
      password: values.PASSWORD!,
      pollIntervalSeconds,
    });
    // The first poll is asked its client actions, the second answers them.
    await printer.poll();
    await printer.through(`${instances.two.api}/cloudprnt`).poll();
    return { route, name, printer };
  }

  /** Whether the agents listing says the agent named `name` is online, through `server`. */
  async function listedOnline(name: string, server: TestServer = instances.two) {
    const agents = await server.request('GET', '/printing/agents', { token: integrator });
    return agents.body.data.find((agent: { name: string }) => agent.name === name).online;
  }

  /** A job queued on `route`: its create's `route_online`, and its wait reason read back. */
  async function jobOn(route: string) {
    const created = await queueOn(instances, integrator, route);
    const read = await readJob(instances.two, integrator, created.id);
    return { routeOnline: created.route_online, waits: read.wait_reason?.code ?? null };
  }

  /** Whether the sweep has announced the agent named `name` offline (its `online_since` cleared). */
  async function sweptOffline(name: string) {
    await instances.one.app.services.printing.sweep();
    const row = await instances.one.app.services.storage.db
      .selectFrom('print_agents')
      .select('online_since')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return row.online_since === null;
  }

  it('polling every 60 s: online 100 s after its last poll, offline after 181 s', async () => {
    const { route, name } = await addPrinter(60);
    advance(100);
    expect(await listedOnline(name)).toBe(true);
    expect(await jobOn(route)).toEqual({ routeOnline: true, waits: null });
    expect(await sweptOffline(name)).toBe(false);
    advance(81);
    expect(await listedOnline(name)).toBe(false);
    expect(await jobOn(route)).toEqual({ routeOnline: false, waits: 'no_agent_online' });
    expect(await sweptOffline(name)).toBe(true);
  });

  it('polling every 2 s: online 7 s after its last poll, offline after 31 s (never less than an agent)', async () => {
    const { route, name } = await addPrinter(2);
    advance(7);
    expect(await listedOnline(name)).toBe(true);
    expect(await jobOn(route)).toEqual({ routeOnline: true, waits: null });
    advance(24);
    expect(await listedOnline(name)).toBe(false);
    expect(await jobOn(route)).toEqual({ routeOnline: false, waits: 'no_agent_online' });
    expect(await sweptOffline(name)).toBe(true);
  });

  it('an agent keeps two heartbeat intervals: online 30 s after its heartbeat, offline after 31 s', async () => {
    const route = `presence-${++routeNumber}`;
    const agent = await registerAgent(instances.one, company, [route]);
    const heartbeat = await agent.call('POST', '/printing/heartbeat', { held_job_ids: [] });
    expect(heartbeat.status).toBe(200);
    const name = `Till ${agent.uuid.slice(0, 4)}`;
    advance(30);
    expect(await listedOnline(name)).toBe(true);
    expect(await sweptOffline(name)).toBe(false);
    advance(1);
    expect(await listedOnline(name)).toBe(false);
    expect(await jobOn(route)).toEqual({ routeOnline: false, waits: 'no_agent_online' });
    expect(await sweptOffline(name)).toBe(true);
  });

  it('polling every 60 s, each poll keeps it present; a poll with nothing new soon after writes nothing', async () => {
    const { name, printer } = await addPrinter(60);
    for (let poll = 0; poll < 4; poll++) {
      advance(60);
      await printer.through(`${instances.one.api}/cloudprnt`).poll();
    }
    advance(170);
    expect(await listedOnline(name)).toBe(true);
    advance(11);
    await printer.poll();
    // Polled again 20 s later: within half its interval, nothing is written.
    advance(20);
    const server = instances.two;
    const poll = () => printer.through(`${server.api}/cloudprnt`).poll();
    const { sent: swept } = await sentDuring(() => server.app.services.printing.sweep());
    if (dialect === 'postgres') {
      const { sent } = await sentDuring(poll);
      const writes = sent.filter((text) => /^\s*(insert|update|delete)\b/i.test(text));
      expect(writes.filter((text) => !swept.includes(text))).toEqual([]);
      expect(count(sent, /cloudprnt_printers/)).toBe(1);
    } else {
      const db = server.app.services.storage.db;
      const changes = async () =>
        (await sql<{ n: number }>`select total_changes() as n`.execute(db)).rows[0]!.n;
      const before = await changes();
      await poll();
      expect(await changes()).toBe(before);
    }
    expect(await listedOnline(name)).toBe(true);
  });
});
