import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PrintableJob, PrinterBackend } from '../../agent/core/printers/backend.ts';
import { FolderBackend } from '../../agent/core/printers/folder.ts';
import type { RuntimeLogLine } from '../../agent/core/status.ts';
import type { PrintOptions } from '../../shared/printing.ts';
import { makeStateDir } from '../agent/helpers/state-dir.ts';
import { startRealAgentTestServer } from '../helpers/real-agent-server.ts';
import { waitFor } from '../helpers/wait.ts';
import { testAgentRuntime } from './helpers/agent-runtime.ts';

/** The real folder back-end, with a gate the test can close before a print starts writing. */
class GatedFolderBackend implements PrinterBackend {
  private readonly folder = new FolderBackend();
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;
  printsStarted = 0;

  hold(): void {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  release(): void {
    this.open?.();
    this.gate = null;
  }

  listPrinters() {
    return this.folder.listPrinters();
  }

  async print(job: PrintableJob, document: Uint8Array, printer: string, options: PrintOptions) {
    this.printsStarted++;
    if (this.gate) await this.gate;
    return this.folder.print(job, document, printer, options);
  }
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(
  backend: PrinterBackend,
  config: Parameters<typeof startRealAgentTestServer>[0] = {},
) {
  const server = await startRealAgentTestServer(config);
  cleanups.push(() => server.close());
  const state = await makeStateDir();
  cleanups.push(state.cleanup);
  const outDir = join(state.dir, 'out');
  const logs: RuntimeLogLine[] = [];
  const runtime = testAgentRuntime(
    server,
    join(state.dir, 'agent'),
    [{ name: 'receipts', printer: `folder:${outDir}` }],
    { backend },
  );
  runtime.onLog((line) => logs.push(line));
  cleanups.push(() => runtime.stop());
  await runtime.start();
  await waitFor(
    'the agent to be connected',
    () => runtime.status().connection === 'connected',
  ).catch((error: Error) => {
    throw new Error(
      `${error.message}: ${JSON.stringify(runtime.status())} ${logs.map((l) => l.message).join(' / ')}`,
    );
  });
  return { server, runtime, outDir, logs };
}

async function filesIn(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

describe('long-poll wake-up against the real server', () => {
  it('prints a job created while the agent waits, within the wait', async () => {
    const backend = new FolderBackend();
    const { server, runtime, outDir } = await setUp(backend, { longPollWaitSeconds: 20 });
    // The agent's long-poll waits on the server with nothing queued.
    await waitFor('the agent waiting in a long-poll', () => server.agentsWaiting());
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.agentsWaiting()).toBe(true);
    expect(await filesIn(outDir)).toEqual([]);

    const startedAt = performance.now();
    const job = await server.createJob({ route: 'receipts', title: 'wake', content: 'wake up' });
    const file = await waitFor(
      'the job to come out of the folder printer',
      async () => (await filesIn(outDir)).find((name) => name.startsWith(`${job.id}-`)),
      15_000,
    );
    const delayMs = performance.now() - startedAt;
    // Measured, not asserted tightly: a polling agent would need up to the whole 20 s wait.
    console.log(`long-poll wake-up: job ${job.id} in ${file} ${delayMs.toFixed(1)} ms after POST`);
    expect(delayMs).toBeLessThan(15_000);
    await waitFor('the job printed on the server', async () => {
      return (await server.job(job.id)).status === 'printed';
    });
    expect(runtime.status().recentJobs[0]).toMatchObject({ id: job.id });
  });
});

describe('offline: the server goes away while a confirm is pending', () => {
  it('delivers the confirm after the server restarts on the same file and port, printing once', async () => {
    const backend = new GatedFolderBackend();
    const { server, runtime, outDir, logs } = await setUp(backend, { longPollWaitSeconds: 2 });

    backend.hold();
    const job = await server.createJob({ route: 'receipts', title: 'offline', content: 'once' });
    await waitFor('the agent to claim and start printing', () => backend.printsStarted === 1);
    expect((await server.job(job.id)).status).toBe('claimed');

    await server.stop();
    backend.release();
    await waitFor('the printed file', async () => (await filesIn(outDir)).length === 1);
    await waitFor(
      'the confirm to wait in the outbox while the server is away',
      () => runtime.status().pendingReports === 1 && runtime.status().connection === 'unreachable',
      15_000,
    );
    // The agent keeps running without the server.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(runtime.status().connection).toBe('unreachable');
    expect(runtime.status().pendingReports).toBe(1);

    await server.restart();
    await waitFor('the confirm delivered', () => runtime.status().pendingReports === 0, 20_000);
    const after = await server.job(job.id);
    expect(after).toMatchObject({ status: 'printed', error: null });
    expect(after.printer).toBe(`folder:${outDir}`);
    await waitFor(
      'the agent connected again',
      () => runtime.status().connection === 'connected',
      10_000,
    );

    // Nothing printed twice: one print, one file, and a later job still prints once.
    const second = await server.createJob({ route: 'receipts', title: 'after', content: 'two' });
    await waitFor(
      'the second job printed',
      async () => {
        return (await server.job(second.id)).status === 'printed';
      },
      15_000,
    );
    expect(backend.printsStarted).toBe(2);
    const files = await filesIn(outDir);
    expect(files.sort()).toEqual([`${job.id}-offline.txt`, `${second.id}-after.txt`].sort());
    expect(logs.some((line) => /reachable again/.test(line.message))).toBe(true);
  });
});
