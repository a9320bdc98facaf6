import { describe, expect, it } from 'vitest';
import { dialects } from '../helpers/instances.ts';
import { epsonPrinter, expectWritesNothing, printerCompany } from './helpers.ts';

/**
 * An Epson printer's status notifications (`ConnectionType=SetStatus`, docs/cloudprnt.md) read
 * as its state, end to end with the simulated TM printer notifying each few cycles and when
 * its state changes, on SQLite and on PostgreSQL with two instances: while it says it cannot
 * print, its print requests get no job and its jobs wait with the reason; once clear, a job
 * prints once.
 */
describe.each(dialects)('Epson status notification (%s)', (dialect) => {
  const shop = printerCompany(dialect);

  /** A printer with its status notification on, added with the command line, named `name`. */
  async function addPrinter(name: string) {
    const server = shop.instances.one.url;
    const { route, values } = await shop.addPrinter('status', { kind: 'epson', name, server });
    return { route, printer: epsonPrinter(values, { statusEvery: 3 }) };
  }

  const { job, queue, cycles } = shop;
  const listed = async (name: string) => {
    const agents = await shop.instances.one.request('GET', '/printing/agents', {
      token: shop.integrator,
    });
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
    const { heartbeatSeconds } = shop.instances.one.app.services.config;
    shop.advanceClocks(heartbeatSeconds * 2000 + 1000);
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
    const server = shop.instances.two;
    const notify = () => printer.through(`${server.api}/cloudprnt/epson`).setStatus();
    await expectWritesNothing(dialect, server, notify);
    expect(printer.wire.at(-1)).toBe('SetStatus 200');
  });
});
