import { beforeEach, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/instances.ts';
import { count } from '../helpers/pg-sent.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent } from '../printing/helpers.ts';
import { addPrinterByCli, expectWritesNothing, printerCompany, starPrinter } from './helpers.ts';

/**
 * When a printer that polls ShopDesk itself is online (docs/cloudprnt.md, "Online"): until it
 * has not polled for three of its polling intervals, two heartbeat intervals (30 s) at least;
 * an agent keeps the two heartbeat intervals. The listing, a create's `route_online`, a
 * waiting job's reason and the offline sweep agree. On SQLite and on PostgreSQL with two
 * instances (the clocks of both moved together).
 */
describe.each(dialects)('presence of a printer member (%s)', (dialect) => {
  const shop = printerCompany(dialect);

  const advance = (seconds: number) => shop.advanceClocks(seconds * 1000);
  // Each test proves a bound to the second: the clocks move only when it says (a loaded run
  // once let a real second pass between a heartbeat and its "30 s later").
  beforeEach(() => shop.stopClocks());

  /** A CloudPRNT printer that answers `GetPollInterval` with `pollIntervalSeconds`. */
  async function addPrinter(pollIntervalSeconds: number) {
    const route = shop.nextRoute('presence');
    const name = `Poller of ${route}`;
    const values = await addPrinterByCli(shop.instances, shop.company, route, { name });
    const url = `${shop.instances.one.api}/cloudprnt`;
    const printer = starPrinter(values, { url, pollIntervalSeconds });
    // The first poll is asked its client actions, the second answers them.
    await printer.poll();
    await printer.through(`${shop.instances.two.api}/cloudprnt`).poll();
    return { route, name, printer };
  }

  /** Whether the agents listing says the agent named `name` is online, through `server`. */
  async function listedOnline(name: string, server: TestServer = shop.instances.two) {
    const agents = await server.request('GET', '/printing/agents', { token: shop.integrator });
    return agents.body.data.find((agent: { name: string }) => agent.name === name).online;
  }

  /** A job queued on `route`: its create's `route_online`, and its wait reason read back. */
  async function jobOn(route: string) {
    const created = await shop.queue(route);
    const read = await shop.job(created.id);
    return { routeOnline: created.route_online, waits: read.wait_reason?.code ?? null };
  }

  /** Whether the sweep has announced the agent named `name` offline (its `online_since` cleared). */
  async function sweptOffline(name: string) {
    await shop.instances.one.app.services.printing.sweep();
    const row = await shop.instances.one.app.services.storage.db
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
    const route = shop.nextRoute('presence');
    const agent = await registerAgent(shop.instances.one, shop.company, [route]);
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
      await printer.through(`${shop.instances.one.api}/cloudprnt`).poll();
    }
    advance(170);
    expect(await listedOnline(name)).toBe(true);
    advance(11);
    await printer.poll();
    // Polled again 20 s later: within half its interval, nothing is written.
    advance(20);
    const server = shop.instances.two;
    const poll = () => printer.through(`${server.api}/cloudprnt`).poll();
    const sent = await expectWritesNothing(dialect, server, poll);
    if (dialect === 'postgres') expect(count(sent, /cloudprnt_printers/)).toBe(1);
    expect(await listedOnline(name)).toBe(true);
  });
});
