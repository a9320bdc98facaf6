import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Instances, startInstances } from '../helpers/instances.ts';
import { CloudPrntPrinter } from '../helpers/printer-simulators/cloudprnt.ts';
import { seeded } from '../helpers/seeded-random.ts';
import { integratorToken } from '../printing/helpers.ts';
import { addPrinterByCli } from './helpers.ts';

/**
 * 1,000 jobs over 20 simulated CloudPRNT printers (four routes of five printers each), their
 * requests spread over both instances, with faults at random: paper out after the GET, the
 * cover opened, a DELETE lost (sent again), a GET whose answer is lost (DELETE 520). Every job
 * is printed exactly once, and the queue says so. A seeded generator makes a failing run
 * repeatable.
 */
const jobCount = 1000;
const routes = ['front', 'kitchen', 'bar', 'office'];
const printersPerRoute = 5;

describe.each(dialects)('1,000 jobs over 20 CloudPRNT printers with faults (%s)', (dialect) => {
  let instances: Instances;
  let company: number;
  let integrator: string;
  const printers: CloudPrntPrinter[] = [];

  beforeAll(async () => {
    instances = await startInstances(dialect);
    company = await instances.one.createCompany();
    integrator = await integratorToken(instances.one, company);
    for (const route of routes) {
      for (let i = 0; i < printersPerRoute; i++) {
        const values = await addPrinterByCli(instances, company, route);
        printers.push(
          new CloudPrntPrinter({
            url: `${instances.one.api}/cloudprnt`,
            user: values.USER!,
            password: values.PASSWORD!,
          }),
        );
      }
    }
  }, 120_000);
  afterAll(() => instances.close());

  it('prints every job exactly once', { timeout: 600_000 }, async () => {
    const seed = 20_261_128;
    const random = seeded(seed);
    const ids: number[] = [];
    for (let n = 0; n < jobCount; n++) {
      const answer = await instances.one.request('POST', '/printing/jobs', {
        token: integrator,
        body: {
          route: routes[n % routes.length],
          content_type: 'text/plain',
          content_base64: Buffer.from(`job ${n}\n`).toString('base64'),
        },
      });
      expect(answer.status).toBe(201);
      ids.push(answer.body.data.id);
    }
    const printedCount = () => printers.reduce((sum, printer) => sum + printer.printed.length, 0);
    let rounds = 0;
    while (printedCount() < jobCount && rounds < 2000) {
      rounds++;
      await Promise.all(
        printers.map(async (printer) => {
          const { condition, faults } = printer;
          if (condition.paperEnd && random() < 0.5) condition.paperEnd = false;
          condition.coverOpen = random() < 0.03;
          faults.paperOutAfterGet = random() < 0.03;
          faults.dropNextDelete = random() < 0.03;
          faults.cutNextGet = random() < 0.03;
          const server = random() < 0.5 ? instances.one : instances.two;
          await printer.through(`${server.api}/cloudprnt`).cycle();
        }),
      );
    }
    // The DELETEs a lost network still owes go out in one last quiet round.
    for (const printer of printers) {
      Object.assign(printer.faults, {
        paperOutAfterGet: false,
        dropNextDelete: false,
        cutNextGet: false,
      });
      Object.assign(printer.condition, { paperEnd: false, coverOpen: false });
    }
    await Promise.all(printers.map((printer) => printer.cycle()));

    const printed = printers.flatMap((printer) => printer.printed.map((p) => p.bytes.toString()));
    expect(printed.length, `seed ${seed}, ${rounds} rounds`).toBe(jobCount);
    expect(new Set(printed).size).toBe(jobCount);
    const statuses = new Map<string, number>();
    for (const id of ids) {
      const job = await instances.two.request('GET', `/printing/jobs/${id}`, { token: integrator });
      const status = job.body.data.status as string;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses), `seed ${seed}`).toEqual({ printed: jobCount });
  });
});
