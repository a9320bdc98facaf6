import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Instances, startInstances } from '../helpers/instances.ts';
import { sentDuring } from '../helpers/pg-sent.ts';
import { EpsonSdpPrinter } from '../helpers/printer-simulators/epson-sdp.ts';
import { integratorToken } from '../printing/helpers.ts';
import { addPrinterByCli, alternately, queueOn, readJob } from './helpers.ts';

/**
 * An Epson printer's status notifications (`ConnectionType=SetStatus`, docs/cloudprnt.md) read
 * as its state, end to end with the simulated TM printer notifying each few cycles and when
 * its state changes, on SQLite and on PostgreSQL with two instances: while it says it cannot
 * print, its print requests get no job and its jobs wait with the reason; once clear, a job
 * prints once.
 */
describe.each(dialects)('Epson status notification (%s)', (dialect) => {
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

  /** A printer with its status notification on, added with the command line, named `name`. */
  async function addPrinter(name: string) {
    const route = `status-${++routeNumber}`;
    const values = await addPrinterByCli(instances, company, route, {
      kind: 'epson',
      name,
      server: instances.one.url,
    });
    const printer = new EpsonSdpPrinter({
      url: values.URL!,
      id: values.USER!,
      password: values.PASSWORD!,
      statusEvery: 3,
    });
    return { route, printer };
  }

  const job = (id: number) => readJob(instances.two, integrator, id);
  const queue = (route: string) => queueOn(instances, integrator, route);
  const cycles = (printer: EpsonSdpPrinter, n: number) =>
    alternately(instances, n, (server) => printer.through(`${server.api}/cloudprnt/epson`).cycle());
  const listed = async (name: string) => {
    const agents = await instances.one.request('GET', '/printing/agents', { token: integrator });
    return agents.body.data.find((agent: { name: string }) => agent.name === name).printers[0];
  };

  it.each([
    ['paperEnd', 'printer_out_of_paper', 'stopped', ['media-empty-error']],
    ['coverOpen', 'printer_cover_open', 'stopped', ['cover-open-error']],
    ['offline', 'printer_offline', 'offline', ['offline-report']],
  ] as const)(
    '%s: no job is handed out, the job waits with %s; once clear it prints once',
    async (condition, code, state, reasons) => {
      const { route, printer } = await addPrinter(`Says ${condition}`);
      printer.condition[condition] = true;
      const queued = await queue(route);
      await cycles(printer, 4);
      expect(printer.wire).toEqual([
        'SetStatus 200',
        'GetRequest 200 empty',
        'GetRequest 200 empty',
        'GetRequest 200 empty',
        'SetStatus 200',
        'GetRequest 200 empty',
      ]);
      expect(await job(queued.id)).toMatchObject({
        status: 'queued',
        attempts: 0,
        wait_reason: { code },
      });
      expect(await listed(`Says ${condition}`)).toMatchObject({ state, reasons });
      printer.condition[condition] = false;
      await cycles(printer, 3);
      expect(printer.printed).toHaveLength(1);
      expect(printer.wire.slice(6, 9)).toEqual([
        'SetStatus 200',
        'GetRequest 200 1 job',
        'SetResponse 200',
      ]);
      expect(await job(queued.id)).toMatchObject({ status: 'printed', attempts: 1 });
      expect(await listed(`Says ${condition}`)).toMatchObject({ state: 'idle', reasons: [] });
    },
  );

  it('paper near end is a warning: jobs print, and the warning stays after they do', async () => {
    const { route, printer } = await addPrinter('Paper low');
    printer.condition.paperNearEnd = true;
    await cycles(printer, 1);
    const queued = await queue(route);
    await cycles(printer, 1);
    expect(await job(queued.id)).toMatchObject({ status: 'printed' });
    expect(await listed('Paper low')).toMatchObject({
      state: 'idle',
      reasons: ['media-low-warning'],
    });
  });

  it('a claim the printer holds is left to its result: printed before the paper ran out, printed once; the state stays the notification’s', async () => {
    const { route, printer } = await addPrinter('Ran out after');
    const queued = await queue(route);
    printer.faults.dropNextResult = true;
    await cycles(printer, 1);
    printer.condition.paperEnd = true;
    await cycles(printer, 1);
    expect(printer.wire.slice(-3)).toEqual([
      'SetStatus 200',
      'SetResponse 200',
      'GetRequest 200 empty',
    ]);
    expect(await job(queued.id)).toMatchObject({ status: 'printed', attempts: 1 });
    expect(printer.printed).toHaveLength(1);
    expect(await listed('Ran out after')).toMatchObject({ reasons: ['media-empty-error'] });
  });

  it('notifications that stop (turned off) hold nothing back: the printer is offered its job again', async () => {
    const { route, printer } = await addPrinter('Went quiet');
    printer.condition.paperEnd = true;
    await cycles(printer, 1);
    printer.options.statusEvery = undefined;
    const queued = await queue(route);
    const { heartbeatSeconds } = instances.one.app.services.config;
    for (const server of new Set([instances.one, instances.two])) {
      server.clock.advance(heartbeatSeconds * 2000 + 1000);
    }
    await cycles(printer, 1);
    // The printer itself refuses it, as without notifications (docs/cloudprnt.md).
    expect(printer.wire.slice(-2)).toEqual(['GetRequest 200 1 job', 'SetResponse 200']);
    expect(await job(queued.id)).toMatchObject({ wait_reason: { code: 'printer_out_of_paper' } });
    printer.condition.paperEnd = false;
    await cycles(printer, 1);
    expect(printer.printed).toHaveLength(1);
    expect(await job(queued.id)).toMatchObject({ status: 'printed', attempts: 2 });
  });

  it('a status notification that says nothing new writes nothing', async () => {
    const { printer } = await addPrinter('Quiet');
    printer.condition.paperEnd = true;
    await cycles(printer, 2);
    const server = instances.two;
    const notify = () => printer.through(`${server.api}/cloudprnt/epson`).setStatus();
    // As for a print request: the sweep's own writes are told apart.
    const { sent: swept } = await sentDuring(() => server.app.services.printing.sweep());
    if (dialect === 'postgres') {
      const { sent } = await sentDuring(notify);
      const writes = sent.filter((text) => /^\s*(insert|update|delete)\b/i.test(text));
      expect(writes.filter((text) => !swept.includes(text))).toEqual([]);
    } else {
      const db = server.app.services.storage.db;
      const changes = async () =>
        (await sql<{ n: number }>`select total_changes() as n`.execute(db)).rows[0]!.n;
      const before = await changes();
      await notify();
      expect(await changes()).toBe(before);
    }
    expect(printer.wire.at(-1)).toBe('SetStatus 200');
  });
});
