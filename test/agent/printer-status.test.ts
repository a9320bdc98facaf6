import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentRuntime } from '../../agent/core/runtime/agent-runtime.ts';
import type { AgentRuntimeOptions } from '../../agent/core/runtime/runtime-context.ts';
import type { RuntimeLogLine } from '../../agent/core/status.ts';
import type { HeartbeatBody, PrinterInfo, RegisterAgentBody } from '../../shared/printing.ts';
import { waitFor } from '../helpers/wait.ts';
import { type AgentTestServer, startAgentTestServer } from './helpers/agent-test-server.ts';
import { HeldPrinterBackend, readyPrinter } from './helpers/fake-backend.ts';
import { makeStateDir } from './helpers/state-dir.ts';

/**
 * The agent reports its printers' state: in its register, in every heartbeat, and early
 * (debounced) when it changes; one log line when a route's printer stops being ready and one
 * when it is ready again. Against the real server with a heartbeat interval of 30 s, so that any
 * heartbeat seen within the test is an early one.
 */

let server: AgentTestServer;
let state: { dir: string; cleanup: () => Promise<void> };
const runtimes: AgentRuntime[] = [];

beforeEach(async () => {
  server = await startAgentTestServer({ heartbeatSeconds: 30 });
  state = await makeStateDir();
});
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.stop();
  await server.close();
  await state.cleanup();
});

const stopped: Partial<PrinterInfo> = {
  state: 'stopped',
  reasons: ['paused'],
  message: 'Paper out',
};

function makeRuntime(backend: HeldPrinterBackend, options: Partial<AgentRuntimeOptions> = {}) {
  const logs: RuntimeLogLine[] = [];
  const runtime = new AgentRuntime({
    serverUrl: server.url,
    token: server.token,
    stateDir: state.dir,
    routes: [{ name: 'receipts', printer: 'Fake' }],
    backend,
    client: { attempts: 1, backoff: { baseMs: 10, maxMs: 50 } },
    reconnect: { baseMs: 20, maxMs: 100 },
    printerCheckMs: 20,
    printerReportDebounceMs: 50,
    ...options,
  });
  runtime.onLog((line) => logs.push(line));
  runtimes.push(runtime);
  return { runtime, logs };
}

const heartbeats = () =>
  server.proxy.requests
    .filter((request) => request.path === '/printing/heartbeat')
    .map((request) => request.body as HeartbeatBody);
const registered = () =>
  server.proxy.requests.find((request) => request.path === '/printing/register')
    ?.body as RegisterAgentBody;
const printerLines = (logs: RuntimeLogLine[]) =>
  logs.filter((line) => line.message.startsWith('printer ')).map((line) => line.message);

describe('printer state reported by the agent, against the real server', () => {
  it('registers with the state, reports a change early, and logs one line each way', async () => {
    const backend = new HeldPrinterBackend();
    const { runtime, logs } = makeRuntime(backend);
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    expect(registered().printers).toEqual([readyPrinter('Fake', { is_default: true })]);
    expect(runtime.status().notReady).toEqual([]);

    const changedAt = Date.now();
    backend.printers = [readyPrinter('Fake', { is_default: true, ...stopped })];
    const beat = await waitFor('a heartbeat with the stopped printer', () =>
      heartbeats().find((body) => body.printers?.[0]?.state === 'stopped'),
    );
    // The interval is 30 s: this one came because the state changed.
    expect(Date.now() - changedAt).toBeLessThan(5000);
    expect(beat.printers).toEqual([readyPrinter('Fake', { is_default: true, ...stopped })]);
    expect((await server.agent(runtime.status().agentId!)).printers[0]).toMatchObject(stopped);
    expect(runtime.status().notReady).toEqual([
      {
        printer: readyPrinter('Fake', { is_default: true, ...stopped }),
        listed: true,
        routes: ['receipts'],
        since: expect.any(String),
      },
    ]);

    // Many checks later, still one line.
    await backend.readAgain(10);
    backend.printers = [readyPrinter('Fake', { is_default: true })];
    await waitFor('a heartbeat with the printer idle again', () =>
      heartbeats().some((body) => body.printers?.[0]?.state === 'idle'),
    );
    await waitFor('status ready', () => runtime.status().notReady.length === 0);
    expect(printerLines(logs)).toEqual([
      'printer Fake (route receipts) is not ready: stopped, paused: Paper out',
      expect.stringMatching(
        /^printer Fake \(route receipts\) is ready again \(was not ready for \d+ s\)$/,
      ),
    ]);
    expect(logs.find((line) => line.message.includes('is not ready'))?.level).toBe('warn');
  });

  it('sends a burst of changes as one heartbeat, with the last state', async () => {
    const backend = new HeldPrinterBackend();
    const { runtime } = makeRuntime(backend, { printerReportDebounceMs: 600 });
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    const offline = readyPrinter('Fake', {
      is_default: true,
      state: 'offline',
      reasons: ['offline-report'],
    });
    // Each state seen by the printer watch, within the 600 ms of one report.
    backend.printers = [readyPrinter('Fake', { is_default: true, ...stopped })];
    await backend.readAgain(2);
    backend.printers = [readyPrinter('Fake', { is_default: true, accepting_jobs: false })];
    await backend.readAgain(2);
    backend.printers = [offline];
    await waitFor('an early heartbeat', () => heartbeats().length > 0);
    // Past another report's 600 ms (the watch reads every 20 ms): nothing more was sent.
    await backend.readAgain(40);
    expect(heartbeats().map((body) => body.printers)).toEqual([[offline]]);
  });

  it('says a route whose printer the system does not list is not ready', async () => {
    const backend = new HeldPrinterBackend();
    const { runtime, logs } = makeRuntime(backend, {
      routes: [
        { name: 'receipts', printer: 'Fake' },
        { name: 'labels', printer: 'Gone_Zebra' },
        { name: 'spare', printer: 'Also_Gone', enabled: false },
      ],
    });
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    expect(runtime.status().notReady).toMatchObject([
      { printer: { name: 'Gone_Zebra', state: 'unknown' }, listed: false, routes: ['labels'] },
    ]);
    // A disabled route's printer is nobody's concern.
    expect(printerLines(logs)).toEqual([
      'printer Gone_Zebra (route labels) is not ready: not found on this computer',
    ]);
  });

  it('reports a folder: route writable as idle, and one that cannot be written as stopped', async () => {
    const file = join(state.dir, 'a-file');
    await writeFile(file, 'not a directory');
    const backend = new HeldPrinterBackend();
    const { runtime, logs } = makeRuntime(backend, {
      backend: undefined,
      routes: [
        { name: 'a4', printer: `folder:${join(state.dir, 'out', 'a4')}` },
        { name: 'broken', printer: `folder:${join(file, 'x')}` },
      ],
    });
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    const folders = registered().printers.filter((printer) => printer.name.startsWith('folder:'));
    expect(folders).toEqual([
      {
        name: `folder:${join(state.dir, 'out', 'a4')}`,
        is_default: false,
        state: 'idle',
        reasons: [],
        accepting_jobs: null,
        message: null,
      },
      {
        name: `folder:${join(file, 'x')}`,
        is_default: false,
        state: 'stopped',
        reasons: ['other-error'],
        accepting_jobs: null,
        message: `cannot write into ${join(file, 'x')}: ${file} is not a directory`,
      },
    ]);
    expect(printerLines(logs)).toEqual([
      `printer folder:${join(file, 'x')} (route broken) is not ready: stopped, printer error: cannot write into ${join(file, 'x')}: ${file} is not a directory`,
    ]);
  });

  it('keeps the last printers when they cannot be read, and says so once', async () => {
    const backend = new HeldPrinterBackend();
    const { runtime, logs } = makeRuntime(backend);
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    const listPrinters = backend.listPrinters.bind(backend);
    let failedReads = 0;
    backend.listPrinters = async () => {
      failedReads++;
      throw new Error('the spooler does not answer');
    };
    // Several failed reads, not one line each.
    await waitFor('several failed reads', () => failedReads >= 5);
    expect(runtime.status().printers).toEqual([readyPrinter('Fake', { is_default: true })]);
    expect(logs.filter((line) => line.message.startsWith('could not read the printers'))).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'could not read the printers: the spooler does not answer',
      }),
    ]);
    backend.listPrinters = listPrinters;
    await waitFor('read again', () =>
      logs.some((line) => line.message === 'the printers can be read again'),
    );
  });
});
