import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PrinterBackendByName } from '../../agent/core/printers/index.ts';
import { AgentRuntime } from '../../agent/core/runtime/agent-runtime.ts';
import type { AgentRuntimeOptions } from '../../agent/core/runtime/runtime-context.ts';
import type { RuntimeLogLine } from '../../agent/core/status.ts';
import { createUser } from '../../server/console/create-user.ts';
import { setPassword } from '../../server/console/set-password.ts';
import type { PrintRoute } from '../../shared/printing.ts';
import { waitFor } from '../helpers/wait.ts';
import { startAgentTestServer } from './helpers/agent-test-server.ts';
import { HeldPrinterBackend } from './helpers/fake-backend.ts';
import { runtimeFixtureOfEach } from './helpers/runtime-fixture.ts';

/**
 * Routes edited on the server reach a running agent at its next heartbeat (a heartbeat a
 * second here): the real agent core against the real server, a person signed in to the
 * console making the edit. A folder printer put on the server is still never adopted.
 */

const each = runtimeFixtureOfEach();

function startRuntime(routes: AgentRuntimeOptions['routes']) {
  const logs: RuntimeLogLine[] = [];
  const adopted: PrintRoute[][] = [];
  const system = new HeldPrinterBackend();
  system.printers.push({ ...system.printers[0]!, name: 'Zebra', is_default: false });
  const runtime = new AgentRuntime({
    serverUrl: each.server.url,
    token: each.server.token,
    stateDir: each.state.dir,
    routes,
    hostname: 'till-1',
    backend: new PrinterBackendByName(system),
    client: { attempts: 1, backoff: { baseMs: 10, maxMs: 50 } },
    reconnect: { baseMs: 20, maxMs: 100 },
    stopGraceMs: 2000,
  });
  runtime.onLog((line) => logs.push(line));
  runtime.onRoutesAdopted((routes) => adopted.push(routes));
  each.runtimes.push(runtime);
  return { runtime, logs, adopted, system };
}

/** A manager signed in to the console of the agent's company: its session cookie. */
async function managerSession(): Promise<string> {
  const { storage } = each.server.server.services();
  const email = `manager-${randomUUID()}@shop.example`;
  const password = 'correct horse battery staple';
  const { user } = await createUser(storage.db, {
    companyId: each.server.server.companyId,
    email,
    role: 'manager',
  });
  await setPassword(storage, storage.db, user.id, password);
  const answer = await fetch(`${each.server.server.url}/api/v1/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: each.server.server.url },
    body: JSON.stringify({ email, password }),
  });
  expect(answer.status).toBe(200);
  return answer.headers.get('set-cookie')!.split(';')[0]!;
}

async function editInConsole(cookie: string, uuid: string, routes: unknown[]) {
  const answer = await fetch(`${each.server.server.url}/api/v1/console/agents/${uuid}/routes`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', origin: each.server.server.url, cookie },
    body: JSON.stringify({ routes }),
  });
  return { status: answer.status, body: await answer.json() };
}

describe('routes changed on the server', () => {
  it('a console edit reaches the running agent within a heartbeat, profile and all', async () => {
    const drop = `folder:${each.output.dir}`;
    const { runtime, logs, adopted } = startRuntime([{ name: 'receipts', printer: drop }]);
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    const uuid = runtime.status().agentId!;
    const cookie = await managerSession();
    const profile = { language: 'zpl' as const, width_mm: 100, dpi: 203 as const };
    const edited = await editInConsole(cookie, uuid, [
      { name: 'receipts', printer: drop, enabled: false },
      { name: 'labels', printer: 'Zebra', profile },
    ]);
    expect(edited.status).toBe(200);
    const started = Date.now();
    await waitFor('adopted', () => runtime.currentRoutes().some((r) => r.name === 'labels'), 5000);
    // One heartbeat is a second here; the agent may have just sent one.
    expect(Date.now() - started).toBeLessThan(2500);
    expect(runtime.currentRoutes()).toEqual([
      { name: 'receipts', printer: drop, enabled: false, options: {} },
      { name: 'labels', printer: 'Zebra', enabled: true, options: {}, profile },
    ]);
    const lines = logs.filter((line) => line.message.startsWith('routes changed on the server'));
    expect(lines.map((line) => line.message)).toEqual([
      `routes changed on the server: receipts=${drop} (disabled), labels=Zebra`,
    ]);
    expect(adopted).toEqual([runtime.currentRoutes()]);

    // A job on the new route prints on the printer the console chose.
    const job = await each.server.createJob({ route: 'labels', content: '^XA^XZ' });
    await waitFor('printed', async () => (await each.server.job(job.id)).status === 'printed');
    expect((await each.server.job(job.id)).printer).toBe('Zebra');

    // The agent's own save (its settings screen) is not read back as the server's change.
    await runtime.updateRoutes([{ name: 'labels', printer: 'Fake' }]);
    await new Promise((resolve) => setTimeout(resolve, 2200));
    expect(logs.filter((l) => l.message.startsWith('routes changed on the server'))).toHaveLength(
      1,
    );
  });

  it('reads its routes before failing a job on a route it does not know yet', async () => {
    // A heartbeat every 30 s: the job comes long before it.
    await each.server.close();
    each.server = await startAgentTestServer({ heartbeatSeconds: 30 });
    const { runtime, logs } = startRuntime([{ name: 'receipts', printer: 'Fake' }]);
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    const cookie = await managerSession();
    const edited = await editInConsole(cookie, runtime.status().agentId!, [
      { name: 'receipts', printer: 'Fake' },
      { name: 'labels', printer: 'Zebra' },
    ]);
    expect(edited.status).toBe(200);
    const job = await each.server.createJob({ route: 'labels', content: '^XA^XZ' });
    await waitFor(
      'printed',
      async () => (await each.server.job(job.id)).status === 'printed',
      5000,
    );
    expect((await each.server.job(job.id)).printer).toBe('Zebra');
    expect(logs.map((line) => line.message)).toContain(
      'routes changed on the server: receipts=Fake, labels=Zebra',
    );
  });

  it('does not adopt a folder printer from the server that its own configuration does not name', async () => {
    const mine = `folder:${each.output.dir}`;
    const { runtime, logs } = startRuntime([{ name: 'receipts', printer: mine }]);
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    const uuid = runtime.status().agentId!;
    // The console refuses it outright...
    const cookie = await managerSession();
    const target = join(each.output.dir, 'elsewhere');
    const refused = await editInConsole(cookie, uuid, [
      { name: 'receipts', printer: `folder:${target}` },
    ]);
    expect(refused.status).toBe(422);
    // ...and one put there by any printing.agent token of the company is refused by the agent.
    const put = await each.server.server.request(
      'PUT',
      '/printing/routes',
      {
        routes: [
          { name: 'receipts', printer: mine },
          { name: 'evil', printer: `folder:${target}` },
          { name: 'labels', printer: 'Zebra' },
        ],
      },
      { 'x-agent-id': uuid },
    );
    expect(put.status).toBe(200);
    await waitFor('adopted', () => runtime.currentRoutes().some((r) => r.name === 'labels'), 5000);
    expect(runtime.currentRoutes().map((r) => `${r.name}=${r.printer}`)).toEqual([
      `receipts=${mine}`,
      'labels=Zebra',
    ]);
    expect(logs.some((l) => l.level === 'error' && l.message.includes("server's route evil"))).toBe(
      true,
    );
    const job = await each.server.createJob({ route: 'evil', content: 'not to be written' });
    await waitFor('failed', async () => (await each.server.job(job.id)).status === 'failed');
    expect((await each.server.job(job.id)).error?.code).toBe('invalid_printer');
    expect(existsSync(target)).toBe(false);
  });
});
