import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Instances, startInstances } from '../helpers/instances.ts';
import { registerAgent, type TestAgent } from '../printing/helpers.ts';
import { localReceivers, subscribe } from './helpers.ts';
import { Receiver } from './receiver.ts';

/**
 * `printer.attention` and `printer.recovered` (docs/webhooks.md, "Printer attention"): once
 * per printer per episode, only after the state has lasted the threshold (30 s here, the
 * default), and once across instances: on PostgreSQL two instances sweep at once, every time.
 */
describe.each(dialects)('printer attention on %s', (dialect) => {
  let instances: Instances;
  let agent: TestAgent;
  const receiver = new Receiver();

  beforeAll(async () => {
    instances = await startInstances(dialect, {
      config: { ...localReceivers, printerAttentionSeconds: 30 },
    });
    const at = Date.now();
    instances.one.clock.stop(at);
    instances.two.clock.stop(at);
    const company = await instances.one.createCompany('Attentive shop');
    const token = await instances.one.token(company, ['webhooks.manage']);
    await receiver.start();
    await subscribe(instances.one, token, receiver, ['printer.attention', 'printer.recovered']);
    agent = await registerAgent(instances.two, company, ['receipts']);
  }, 60_000);
  afterAll(async () => {
    await instances?.close();
    await receiver.stop();
  });

  /** Both instances sweep at once, as their timers do. */
  const sweepBoth = () =>
    Promise.all([
      instances.one.app.services.printing.sweep(),
      instances.two.app.services.printing.sweep(),
    ]);
  /** Time passes on both instances, and the agent reports its printer meanwhile. */
  async function later(seconds: number, printer: Record<string, unknown>): Promise<void> {
    instances.one.clock.advance(seconds * 1000);
    // SQLite: the one instance twice, its one clock.
    if (instances.two !== instances.one) instances.two.clock.advance(seconds * 1000);
    const beat = await agent.call('POST', '/printing/heartbeat', {
      printers: [{ name: 'EPSON', is_default: true, ...printer }],
    });
    expect(beat.status).toBe(200);
    await sweepBoth();
  }
  const paperOut = {
    state: 'stopped',
    reasons: ['paused'],
    accepting_jobs: true,
    message: 'Paper out',
  };
  const coverOpen = { state: 'stopped', reasons: ['cover-open-error'], accepting_jobs: true };
  const ready = { state: 'idle', reasons: [], accepting_jobs: true, message: null };

  async function events(): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
    const rows = await instances.one.app.services.storage.db
      .selectFrom('webhook_deliveries')
      .select('body')
      .orderBy('id')
      .execute();
    return rows.map((row) => JSON.parse(row.body));
  }

  it('a cover opened for 10 s to change paper is no alert', async () => {
    await later(0, coverOpen);
    await later(10, ready);
    await later(30, ready);
    await later(30, ready);
    expect(await events()).toEqual([]);
  });

  it('paper out for 30 s: printer.attention once, with the printer’s own message; once back, printer.recovered once', async () => {
    await later(1, paperOut);
    await later(15, paperOut);
    expect(await events()).toEqual([]);
    await later(15, paperOut);
    const attention = await events();
    expect(attention.map((event) => event.type)).toEqual(['printer.attention']);
    expect(attention[0]!.data).toMatchObject({
      agent_id: agent.uuid,
      printer: 'EPSON',
      code: 'printer_out_of_paper',
      message: 'printer EPSON is out of paper: Paper out',
    });
    await later(15, paperOut);
    await later(15, paperOut);
    expect((await events()).map((event) => event.type)).toEqual(['printer.attention']);
    await later(1, ready);
    await later(15, ready);
    const all = await events();
    expect(all.map((event) => event.type)).toEqual(['printer.attention', 'printer.recovered']);
    expect(all[1]!.data).toMatchObject({
      agent_id: agent.uuid,
      printer: 'EPSON',
      code: 'printer_out_of_paper',
      since: attention[0]!.data.since,
    });
  });

  it('a new episode is announced again', async () => {
    await later(1, paperOut);
    await later(31, paperOut);
    await later(5, paperOut);
    expect((await events()).map((event) => event.type)).toEqual([
      'printer.attention',
      'printer.recovered',
      'printer.attention',
    ]);
  });
});
