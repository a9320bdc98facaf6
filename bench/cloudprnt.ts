import { parseArgs } from 'node:util';
import { addCloudPrntPrinter } from '../server/cloudprnt/index.ts';
import { createCompany } from '../server/companies/create-company.ts';
import { createToken } from '../server/tokens/index.ts';
import { WebhookOutbox } from '../server/webhooks/outbox.ts';
import { withServedSqlite } from './lib/served-sqlite.ts';
import { cpuSecondsOf } from './lib/spawn.ts';

const { values } = parseArgs({
  options: {
    printers: { type: 'string', default: '500' },
    interval: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '30' },
    'idle-polls': { type: 'string', default: '5000' },
  },
});
const printerCount = Number(values.printers);
const intervalMs = Number(values.interval) * 1000;
const fleetMs = Number(values.seconds) * 1000;
const idlePolls = Number(values['idle-polls']);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

interface Printer {
  route: string;
  authorization: string;
  /** When the job queued on its route was answered (ms, performance.now()), until its GET. */
  queuedAt?: number;
}

const status = {
  status: '23 86 00 00 00 00 00 00 00',
  printerMAC: '00:11:62:00:00:01',
  statusCode: '200 OK',
  printingInProgress: false,
};
/** A printer answers the client actions once, in the poll after they were asked. */
const firstPollBody = JSON.stringify({
  ...status,
  clientAction: [
    { request: 'ClientType', result: 'Star mC-Print3' },
    { request: 'Encodings', result: 'application/vnd.star.starprnt;text/plain' },
    { request: 'GetPollInterval', result: String(intervalMs / 1000) },
  ],
});
const pollBody = JSON.stringify(status);

async function main() {
  await withServedSqlite('cloudprnt', async ({ url: served, pid, storage }) => {
    const cpu = () => cpuSecondsOf(pid) ?? 0;
    const url = `${served}/api/v1/cloudprnt`;
    const company = await createCompany(storage.db, 'Bench');
    const { secret: integrator } = await createToken(storage.db, {
      companyId: company,
      permissions: ['printing.jobs.create'],
      name: 'bench',
    });
    const deps = { storage, outbox: new WebhookOutbox(storage) };
    const printers: Printer[] = [];
    for (let i = 0; i < printerCount; i++) {
      const route = `cp-${i}`;
      const added = await addCloudPrntPrinter(
        deps,
        storage.db,
        { companyId: company, route },
        new Date(),
      );
      const basic = Buffer.from(`${added.username}:${added.password}`).toString('base64');
      printers.push({ route, authorization: `Basic ${basic}` });
    }
    const poll = async (printer: Printer, body = pollBody) => {
      const started = performance.now();
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: printer.authorization, 'content-type': 'application/json' },
        body,
      });
      const answer = (await response.json()) as { jobReady?: boolean };
      const took = performance.now() - started;
      if (response.status !== 200) throw new Error(`poll answered ${response.status}`);
      return { took, ready: answer.jobReady === true };
    };
    const printJob = async (printer: Printer) => {
      const query = '?mac=00%3A11%3A62%3A00%3A00%3A01&type=text%2Fplain';
      const got = await fetch(`${url}${query}`, {
        headers: { authorization: printer.authorization },
      });
      await got.arrayBuffer();
      const at = performance.now();
      await (
        await fetch(`${url}?mac=00%3A11%3A62%3A00%3A00%3A01&code=200%20OK`, {
          method: 'DELETE',
          headers: { authorization: printer.authorization },
        })
      ).arrayBuffer();
      return at;
    };

    // Every printer polls once with its client actions' answers (as after its first poll).
    for (const printer of printers) await poll(printer, firstPollBody);

    // idle: one printer, its presence fresh first.
    const idle = printers[0]!;
    for (let i = 0; i < 3; i++) await poll(idle);
    const idleStart = cpu();
    for (let i = 0; i < idlePolls; i++) await poll(idle);
    const idleCpuMs = (cpu() - idleStart) * 1000;

    // fleet and latency.
    const latencies: number[] = [];
    const toGet: number[] = [];
    let running = true;
    const fleetStart = cpu();
    const loops = printers.map(async (printer) => {
      await wait(Math.random() * intervalMs);
      while (running) {
        const next = performance.now() + intervalMs;
        const { took, ready } = await poll(printer);
        latencies.push(took);
        if (ready) {
          const at = await printJob(printer);
          if (printer.queuedAt !== undefined) toGet.push(at - printer.queuedAt);
          printer.queuedAt = undefined;
        }
        await wait(Math.max(0, next - performance.now()));
      }
    });
    const jobs = (async () => {
      await wait(intervalMs);
      while (running) {
        const printer = printers[1 + Math.floor(Math.random() * (printers.length - 1))]!;
        if (printer.queuedAt === undefined) {
          const answer = await fetch(`${served}/api/v1/printing/jobs`, {
            method: 'POST',
            headers: { authorization: `Bearer ${integrator}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              route: printer.route,
              content_type: 'text/plain',
              content_base64: Buffer.from('bench\n').toString('base64'),
            }),
          });
          await answer.arrayBuffer();
          if (answer.status !== 201) throw new Error(`job create answered ${answer.status}`);
          printer.queuedAt = performance.now();
        }
        await wait(1000);
      }
    })();
    await wait(fleetMs);
    running = false;
    await Promise.all([...loops, jobs]);
    const fleetCpu = cpu() - fleetStart;
    latencies.sort((a, b) => a - b);
    toGet.sort((a, b) => a - b);

    const ms = (n: number) => `${n.toFixed(2)} ms`;
    console.log(`node ${process.version}, ${new Date().toISOString()}`);
    console.log(
      `idle poll: ${idlePolls} polls, server CPU ${ms(idleCpuMs)} in all, ${ms(idleCpuMs / idlePolls)} a poll (target ≤ 0.3 ms)`,
    );
    console.log(
      `fleet: ${printerCount} printers every ${intervalMs / 1000} s for ${fleetMs / 1000} s: ${latencies.length} polls, p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(latencies.at(-1) ?? Number.NaN)} (target p99 ≤ 20 ms); server CPU ${((fleetCpu / (fleetMs / 1000)) * 100).toFixed(1)} % of a core`,
    );
    console.log(
      `job to GET: ${toGet.length} jobs, p50 ${ms(percentile(toGet, 50))}, max ${ms(toGet.at(-1) ?? Number.NaN)} (target ≤ ${intervalMs + 50} ms)`,
    );
  });
}

await main();
