import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PrinterBackendByName } from '../../agent/core/printers/index.ts';
import { AgentRuntime } from '../../agent/core/runtime/agent-runtime.ts';
import type { AgentRuntimeOptions } from '../../agent/core/runtime/runtime-context.ts';
import { checkServerRoutes, isLocalOnlyPrinter } from '../../agent/core/runtime/server-routes.ts';
import type { RuntimeLogLine } from '../../agent/core/status.ts';
import { shopdesk } from '../helpers/shopdesk-cli.ts';
import { waitFor } from '../helpers/wait.ts';
import { HeldPrinterBackend } from './helpers/fake-backend.ts';
import { runtimeFixtureOfEach } from './helpers/runtime-fixture.ts';

/**
 * The server cannot make an agent write anywhere: a route it hands out naming a `folder:`
 * printer (or any printer that is not the operating system's) is refused by the agent, its
 * jobs fail with the reason, and nothing is written, whoever put the route on the server
 * (any `printing.agent` token of the company may). The real agent core against the real
 * server, with the real folder back-end behind the printer names, so that a route let
 * through would really write.
 */

const each = runtimeFixtureOfEach();

function startRuntime(
  routes: AgentRuntimeOptions['routes'],
  system = new HeldPrinterBackend(),
  token = each.server.token,
) {
  const logs: RuntimeLogLine[] = [];
  const runtime = new AgentRuntime({
    serverUrl: each.server.url,
    token,
    stateDir: each.state.dir,
    routes,
    hostname: 'till-1',
    backend: new PrinterBackendByName(system),
    client: { attempts: 1, backoff: { baseMs: 10, maxMs: 50 } },
    reconnect: { baseMs: 20, maxMs: 100 },
    stopGraceMs: 2000,
  });
  runtime.onLog((line) => logs.push(line));
  each.runtimes.push(runtime);
  return { runtime, logs, system };
}

/** The agent this state directory will be, registered and given routes by someone else. */
async function routesPutByAnother(routes: Array<{ name: string; printer: string }>) {
  const uuid = randomUUID();
  await writeFile(
    join(each.state.dir, 'agent.json'),
    JSON.stringify({ uuid, created_at: new Date().toISOString() }),
  );
  const headers = { 'x-agent-id': uuid };
  const registered = await each.server.server.request(
    'POST',
    '/printing/register',
    { uuid, name: 'till', hostname: 'till-1', platform: 'linux', version: '0.1.0' },
    headers,
  );
  expect(registered.status).toBe(201);
  const put = await each.server.server.request('PUT', '/printing/routes', { routes }, headers);
  expect(put.status).toBe(200);
  return uuid;
}

describe('routes from the server', () => {
  it('refuses a folder: printer the server names: the job fails with the reason, nothing is written', async () => {
    const target = join(each.output.dir, 'cron.d');
    const uuid = await routesPutByAnother([
      { name: 'receipts', printer: `folder:${target}` },
      { name: 'labels', printer: 'Fake' },
    ]);
    const { runtime, logs, system } = startRuntime([]);
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    // The system printer's route is served; the folder one is not.
    expect(runtime.currentRoutes().map((route) => route.name)).toEqual(['labels']);
    expect(logs.some((line) => line.message.includes("the server's route receipts"))).toBe(true);

    const job = await each.server.createJob({
      route: 'receipts',
      content: '* * * * * root evil\n',
    });
    await waitFor('failed', async () => (await each.server.job(job.id)).status === 'failed');
    const failed = await each.server.job(job.id);
    expect(failed.error?.code).toBe('invalid_printer');
    expect(failed.error?.message).toContain(
      `the server's route receipts names the printer "folder:${target}", which is not a printer of this computer`,
    );
    expect(failed.error?.message).toContain('nothing was written');
    expect(existsSync(target)).toBe(false);
    expect(await readdir(each.output.dir)).toEqual([]);

    // The folder is not even looked at: the agent reports no such printer to the each.server.
    await waitFor(
      'printers reported',
      async () => (await each.server.agent(uuid)).printers.length > 0,
    );
    const reported = (await each.server.agent(uuid)).printers.map((printer) => printer.name);
    expect(reported).toEqual(['Fake']);

    // The system printer's route prints as before.
    const label = await each.server.createJob({ route: 'labels', content: 'label' });
    await waitFor('printed', async () => (await each.server.job(label.id)).status === 'printed');
    expect(system.prints.map((print) => print.printer)).toEqual(['Fake']);
  });

  it('prints into a folder its own configuration names, which it saves on the server', async () => {
    const { runtime } = startRuntime([{ name: 'receipts', printer: `folder:${each.output.dir}` }]);
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    const job = await each.server.createJob({ route: 'receipts', title: 'R', content: 'r' });
    await waitFor('printed', async () => (await each.server.job(job.id)).status === 'printed');
    expect(await readdir(each.output.dir)).toEqual([`${job.id}-R.txt`]);
  });
});

describe('a token bound to the agent', () => {
  it('is refused a route it was not granted, and the agent says which', async () => {
    const uuid = randomUUID();
    await writeFile(
      join(each.state.dir, 'agent.json'),
      JSON.stringify({ uuid, created_at: new Date().toISOString() }),
    );
    const created = await shopdesk(
      'token',
      'create',
      '--company',
      String(each.server.server.companyId),
      '--permissions',
      'printing.agent',
      '--agent',
      uuid,
      '--routes',
      'receipts',
      '--db',
      each.server.server.dbFile,
    );
    const token = created.stdout.trim();
    const { runtime, logs } = startRuntime(
      [{ name: 'labels', printer: 'Fake' }],
      new HeldPrinterBackend(),
      token,
    );
    await runtime.start();
    await waitFor('refused', () => runtime.status().connection === 'unauthorized');
    expect(logs.map((line) => line.message).join('\n')).toContain(
      `This token is bound to the print agent ${uuid} and may not give it the route labels`,
    );
    await runtime.stop();
    // The granted route it takes.
    const granted = startRuntime([{ name: 'receipts', printer: 'Fake' }], undefined, token);
    await granted.runtime.start();
    await waitFor('connected', () => granted.runtime.status().connection === 'connected');
  });
});

describe('which printers only the agent’s own configuration may name', () => {
  it.each([
    ['folder:/etc/cron.d', true],
    ['folder:C:\\Windows\\Tasks', true],
    ['FOLDER:/tmp', true],
    ['file:///etc/passwd', true],
    ['socket://10.0.0.5:9100', true],
    ['C:\\Users\\Public', true],
    ['EPSON_TM_T20', false],
    ['Zebra_ZD421', false],
    ['\\\\printserver\\Front Desk', false],
    ['HP LaserJet 400 (Copy 1)', false],
  ])('%s → %s', (printer, localOnly) => {
    expect(isLocalOnlyPrinter(printer)).toBe(localOnly);
  });
});

describe('backup printers from the server', () => {
  const route = (printer: string, backup_printers: string[]) => ({
    name: 'receipts',
    printer,
    backup_printers,
    enabled: true,
    options: {},
  });

  it('refuses a route whose backup is a local printer this PC did not map there', () => {
    const checked = checkServerRoutes(
      [route('EPSON', ['folder:/etc/cron.d'])],
      [{ name: 'receipts', printer: 'EPSON' }],
    );
    expect(checked.routes).toEqual([]);
    expect(checked.refused.get('receipts')).toContain('"folder:/etc/cron.d"');
  });

  it('serves one whose local printers are all among its own for that route, in any order', () => {
    const checked = checkServerRoutes(
      [route('socket://10.0.0.5', ['EPSON', 'folder:/srv/r'])],
      [{ name: 'receipts', printer: 'folder:/srv/r', backup_printers: ['socket://10.0.0.5'] }],
    );
    expect(checked.refused.size).toBe(0);
    expect(checked.routes.map((served) => served.printer)).toEqual(['socket://10.0.0.5']);
  });
});
