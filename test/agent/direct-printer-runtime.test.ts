import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentRuntime } from '../../agent/core/runtime/agent-runtime.ts';
import type { RuntimeLogLine } from '../../agent/core/status.ts';
import type { HeartbeatBody } from '../../shared/printing.ts';
import { EscposSimulator } from '../helpers/printer-simulators/escpos.ts';
import { waitFor } from '../helpers/wait.ts';
import { type AgentTestServer, startAgentTestServer } from './helpers/agent-test-server.ts';
import { makeStateDir } from './helpers/state-dir.ts';

/**
 * A route on a printer reached directly, through the whole agent: the runtime builds its own
 * back-end (the one `shopdesk agent` uses), which reads the printer in the route profile's
 * language; the real server takes the state and the capability, and gets the confirm only
 * once the printer answered the process ID.
 */

let server: AgentTestServer;
let state: { dir: string; cleanup: () => Promise<void> };
let printer: EscposSimulator;
const runtimes: AgentRuntime[] = [];

beforeEach(async () => {
  server = await startAgentTestServer({ heartbeatSeconds: 30 });
  state = await makeStateDir();
  printer = await new EscposSimulator().start();
});
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.stop();
  await printer.stop();
  await server.close();
  await state.cleanup();
});

function start(): { runtime: AgentRuntime; logs: RuntimeLogLine[] } {
  const logs: RuntimeLogLine[] = [];
  const runtime = new AgentRuntime({
    serverUrl: server.url,
    token: server.token,
    stateDir: state.dir,
    routes: [
      { name: 'receipts', printer: printer.url, profile: { language: 'escpos', width_mm: 80 } },
    ],
    client: { attempts: 1, backoff: { baseMs: 10, maxMs: 50 } },
    reconnect: { baseMs: 20, maxMs: 100 },
    printerCheckMs: 50,
    printerReportDebounceMs: 50,
  });
  runtime.onLog((line) => logs.push(line));
  runtimes.push(runtime);
  return { runtime, logs };
}

const heartbeats = () =>
  server.proxy.requests
    .filter((request) => request.path === '/printing/heartbeat')
    .map((request) => request.body as HeartbeatBody);

describe('a socket:// route through the agent runtime and the real server', () => {
  it('reports the state read in escpos, with the language as capability, and says when paper runs out', async () => {
    const { runtime, logs } = start();
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    await waitFor('the printer read', () =>
      runtime.status().printers.some((info) => info.name === printer.url && info.state === 'idle'),
    );
    expect(runtime.status().printers.find((info) => info.name === printer.url)).toMatchObject({
      capabilities: { languages: ['escpos'] },
    });

    printer.set({ paperEnd: true });
    const beat = await waitFor('a heartbeat with paper out', () =>
      heartbeats().find((body) =>
        body.printers?.some((info) => info.reasons.includes('media-empty-error')),
      ),
    );
    expect(beat.printers?.find((info) => info.name === printer.url)?.state).toBe('stopped');
    expect(logs.map((line) => line.message)).toContain(
      `printer ${printer.url} (route receipts) is not ready: stopped, out of paper, offline`,
    );
  });

  it('prints a job and confirms it to the server', async () => {
    const { runtime } = start();
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    const document = '\x1b@Table 4: 2 coffees\n\x1dVB\x00';
    const job = await server.createJob({
      route: 'receipts',
      title: 'receipt',
      content_type: 'application/vnd.escpos',
      content: document,
    });
    await waitFor(
      'printed on the server',
      async () => (await server.job(job.id)).status === 'printed',
    );
    expect(printer.printedBuffer().toString('latin1')).toBe(document);
  });
});
