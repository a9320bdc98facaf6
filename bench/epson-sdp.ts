/**
 * What an Epson printer on Server Direct Print costs the server when it has nothing to print
 * (docs/cloudprnt.md, "Epson Server Direct Print"), against `shopdesk serve` in a child
 * process on a fresh SQLite file, the printer in this process speaking the protocol as
 * test/helpers/printer-simulators/epson-sdp.ts does: each print request is a dummy POST (401
 * and the Digest challenge) and the POST with the Digest answer (an empty 200). The server's
 * CPU per print request, both POSTs counted (utime + stime of its process, /proc/PID/stat).
 *
 * The machine is shared (2 cores, other work beside): figures are what one run saw.
 * Linux only (reads /proc).
 *
 *   node bench/epson-sdp.ts [--requests 3000]
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { addCloudPrntPrinter } from '../server/cloudprnt/index.ts';
import { createCompany } from '../server/companies/create-company.ts';
import { openStorage } from '../server/storage/database.ts';
import { WebhookOutbox } from '../server/webhooks/outbox.ts';
import { EpsonSdpPrinter } from '../test/helpers/printer-simulators/epson-sdp.ts';
import { startServe } from '../test/helpers/serve-process.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '3000' } } });
const requests = Number(values.requests);
const ticksPerSecond = 100; // USER_HZ on Linux

async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'shopdesk-bench-epson-'));
  const file = join(dir, 'shopdesk.sqlite');
  const serve = await startServe(['--db', file, '--create', '--rate-limit', '0']);
  const pid = serve.child.pid!;
  const storage = openStorage({ kind: 'sqlite', file });
  try {
    const company = await createCompany(storage.db, 'Bench');
    const deps = { storage, outbox: new WebhookOutbox(storage) };
    const added = await addCloudPrntPrinter(
      deps,
      storage.db,
      { companyId: company, route: 'epson', kind: 'epson' },
      new Date(),
    );
    const printer = new EpsonSdpPrinter({
      url: `${serve.url}/api/v1/cloudprnt/epson`,
      id: added.username,
      password: added.password,
    });
    // Its presence fresh first, as a printer already polling.
    for (let i = 0; i < 3; i++) await printer.getRequest();
    const start = await cpuSeconds(pid);
    const began = performance.now();
    for (let i = 0; i < requests; i++) {
      if ((await printer.getRequest()) !== undefined) throw new Error('a job to print');
    }
    const wall = performance.now() - began;
    const cpuMs = ((await cpuSeconds(pid)) - start) * 1000;
    const ms = (n: number) => `${n.toFixed(2)} ms`;
    console.log(`node ${process.version}, ${new Date().toISOString()}`);
    console.log(
      `empty print request (dummy 401 + Digest POST): ${requests} requests, server CPU ${ms(cpuMs / requests)} each; ${ms(wall / requests)} each as the printer saw it`,
    );
  } finally {
    await storage.close();
    serve.child.kill('SIGTERM');
    await serve.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
