import { parseArgs } from 'node:util';
import { addCloudPrntPrinter } from '../server/cloudprnt/index.ts';
import { createCompany } from '../server/companies/create-company.ts';
import { WebhookOutbox } from '../server/webhooks/outbox.ts';
import { EpsonSdpPrinter } from '../test/helpers/printer-simulators/epson-sdp.ts';
import { withServedSqlite } from './lib/served-sqlite.ts';
import { cpuSecondsOf } from './lib/spawn.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '3000' } } });
const requests = Number(values.requests);

async function main() {
  await withServedSqlite('epson', async ({ url: served, pid, storage }) => {
    const cpu = () => cpuSecondsOf(pid) ?? 0;
    const company = await createCompany(storage.db, 'Bench');
    const deps = { storage, outbox: new WebhookOutbox(storage) };
    const added = await addCloudPrntPrinter(
      deps,
      storage.db,
      { companyId: company, route: 'epson', kind: 'epson' },
      new Date(),
    );
    const printer = new EpsonSdpPrinter({
      url: `${served}/api/v1/cloudprnt/epson`,
      id: added.username,
      password: added.password,
    });
    // Its presence fresh first, as a printer already polling.
    for (let i = 0; i < 3; i++) await printer.getRequest();
    const start = cpu();
    const began = performance.now();
    for (let i = 0; i < requests; i++) {
      if ((await printer.getRequest()) !== undefined) throw new Error('a job to print');
    }
    const wall = performance.now() - began;
    const cpuMs = (cpu() - start) * 1000;
    const ms = (n: number) => `${n.toFixed(2)} ms`;
    console.log(`node ${process.version}, ${new Date().toISOString()}`);
    console.log(
      `empty print request (dummy 401 + Digest POST): ${requests} requests, server CPU ${ms(cpuMs / requests)} each; ${ms(wall / requests)} each as the printer saw it`,
    );
  });
}

await main();
