import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentRuntime } from '../../agent/core/runtime/agent-runtime.ts';
import type { RuntimeLogLine } from '../../agent/core/status.ts';
import { EscposSimulator } from '../helpers/printer-simulators/escpos.ts';
import { waitFor } from '../helpers/wait.ts';
import { type AgentTestServer, startAgentTestServer } from './helpers/agent-test-server.ts';
import { makeStateDir } from './helpers/state-dir.ts';

/**
 * Backup printers (docs/agent.md, "Backup printers"): a route on two ESC/POS printers reached
 * directly (the simulators of test/helpers/printer-simulators), through the agent runtime and
 * the real server. The first printer that can print prints; a job goes to the backup only when
 * the first said nothing came out (`printed: 'no'`), never after bytes were sent.
 */

let server: AgentTestServer;
let front1: EscposSimulator;
let front2: EscposSimulator;
const cleanups: Array<() => Promise<void>> = [];

beforeEach(async () => {
  server = await startAgentTestServer({ heartbeatSeconds: 30 });
  front1 = await new EscposSimulator().start();
  front2 = await new EscposSimulator().start();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await front1.stop();
  await front2.stop();
  await server.close();
});

const profile = { language: 'escpos', width_mm: 80 } as const;

/** An agent on route receipts = `printers` in order; `printerCheckMs` how often it reads them. */
async function startAgent(
  printers: EscposSimulator[],
  printerCheckMs = 50,
): Promise<{ runtime: AgentRuntime; logs: RuntimeLogLine[] }> {
  const state = await makeStateDir();
  const logs: RuntimeLogLine[] = [];
  const [first, ...backups] = printers.map((printer) => printer.url);
  const runtime = new AgentRuntime({
    serverUrl: server.url,
    token: server.token,
    stateDir: state.dir,
    routes: [{ name: 'receipts', printer: first ?? '', backup_printers: backups, profile }],
    client: { attempts: 1, backoff: { baseMs: 10, maxMs: 50 } },
    reconnect: { baseMs: 20, maxMs: 100 },
    printerCheckMs,
    printerReportDebounceMs: 50,
  });
  runtime.onLog((line) => logs.push(line));
  cleanups.push(async () => {
    await runtime.stop();
    await state.cleanup();
  });
  await runtime.start();
  await waitFor('connected', () => runtime.status().connection === 'connected');
  return { runtime, logs };
}

/** A receipt whose bytes name it: `RECEIPT-<n>;` appears once per copy that came out. */
const receipt = (n: number) => `\x1b@RECEIPT-${String(n).padStart(6, '0')};${'-'.repeat(120)}\n`;

/** How many times receipt `n` came out of `printer`. */
function copiesOf(printer: EscposSimulator, n: number): number {
  const mark = `RECEIPT-${String(n).padStart(6, '0')};`;
  return printer.printedBuffer().toString('latin1').split(mark).length - 1;
}

async function queue(n: number) {
  return server.createJob({
    route: 'receipts',
    title: `receipt ${n}`,
    content_type: 'application/vnd.escpos',
    content: receipt(n),
  });
}

const settled = async (id: number) => {
  const job = await server.job(id);
  return job.status === 'printed' || job.status === 'failed' ? job : null;
};

const readAs = (runtime: AgentRuntime, printer: EscposSimulator, state: string) =>
  waitFor(`${printer.url} read ${state}`, () =>
    runtime.status().printers.some((info) => info.name === printer.url && info.state === state),
  );

describe('a route with a backup printer', () => {
  it('primary out of paper: the backup prints, the primary receives nothing; primary back: the next job goes to it', async () => {
    const { runtime } = await startAgent([front1, front2]);
    await readAs(runtime, front1, 'idle');
    const before = front1.printedBytes;
    front1.set({ paperEnd: true });
    await readAs(runtime, front1, 'stopped');

    const first = await queue(1);
    const printed = await waitFor('job 1 settled', () => settled(first.id));
    expect(printed).toMatchObject({ status: 'printed', printer: front2.url });
    expect(copiesOf(front2, 1)).toBe(1);
    expect(front1.printedBytes).toBe(before);
    expect(front1.printedBuffer().toString('latin1')).not.toContain('RECEIPT');

    front1.set({ paperEnd: false });
    await readAs(runtime, front1, 'idle');
    const second = await queue(2);
    expect(await waitFor('job 2 settled', () => settled(second.id))).toMatchObject({
      status: 'printed',
      printer: front1.url,
    });
    expect(copiesOf(front1, 2)).toBe(1);
    expect(copiesOf(front2, 2)).toBe(0);
  });

  it('primary out of paper before the reading saw it: it refuses before any byte (no), the backup prints', async () => {
    // A reading once a minute: the job meets the printer before the agent's reading does.
    const { runtime, logs } = await startAgent([front1, front2], 60_000);
    await readAs(runtime, front1, 'idle');
    front1.set({ paperEnd: true });
    const job = await queue(3);
    expect(await waitFor('job 3 settled', () => settled(job.id))).toMatchObject({
      status: 'printed',
      printer: front2.url,
    });
    expect(copiesOf(front1, 3)).toBe(0);
    expect(copiesOf(front2, 3)).toBe(1);
    expect(logs.map((line) => line.message)).toContainEqual(
      expect.stringMatching(
        new RegExp(`job ${job.id}: printer ${front1.url} did not print it \\(printer_not_ready`),
      ),
    );
  });

  it('primary gone before any byte (unreachable): the backup prints it, once', async () => {
    const { runtime } = await startAgent([front1, front2], 60_000);
    await readAs(runtime, front1, 'idle');
    await front1.stop(); // Connection refused from now on: nothing can be sent.
    const job = await queue(4);
    expect(await waitFor('job 4 settled', () => settled(job.id))).toMatchObject({
      status: 'printed',
      printer: front2.url,
    });
    expect(copiesOf(front1, 4)).toBe(0);
    expect(copiesOf(front2, 4)).toBe(1);
  });

  it('primary gone mid-job (printed unknown): the backup does not print it; the job fails for a person', async () => {
    const { runtime } = await startAgent([front1, front2], 60_000);
    await readAs(runtime, front1, 'idle');
    // Status reads send a few bytes each; the job's connection goes past 60 and is reset.
    front1.vanishAfterBytes = 60;
    const job = await queue(5);
    const failed = await waitFor('job 5 settled', () => settled(job.id), 20_000);
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: 'print_unconfirmed' },
    });
    expect(front2.printedBuffer().toString('latin1')).not.toContain('RECEIPT');
    // Let the agent settle before the next test (no job left in hand).
    await waitFor('nothing in hand', () => runtime.status().printing === 0);
  });

  it('every printer of the route out: the job waits on the server, and prints once one is back', async () => {
    const { runtime } = await startAgent([front1, front2]);
    await readAs(runtime, front2, 'idle');
    front1.set({ paperEnd: true });
    front2.set({ coverOpen: true });
    await readAs(runtime, front1, 'stopped');
    await readAs(runtime, front2, 'stopped');
    const job = await queue(6);
    await waitFor('the job says why it waits', async () => (await server.job(job.id)).wait_reason);
    expect((await server.job(job.id)).status).toBe('queued');
    front2.set({ coverOpen: false });
    expect(await waitFor('job 6 settled', () => settled(job.id))).toMatchObject({
      status: 'printed',
      printer: front2.url,
    });
    expect(copiesOf(front1, 6) + copiesOf(front2, 6)).toBe(1);
  });
});

describe('two agents on one route', () => {
  it("one agent's printers all out: the other agent prints", async () => {
    const shop = await new EscposSimulator().start();
    cleanups.push(() => shop.stop());
    const a = await startAgent([front1, front2]);
    front1.set({ paperEnd: true });
    front2.set({ offline: true });
    await readAs(a.runtime, front1, 'stopped');
    await readAs(a.runtime, front2, 'offline');
    const b = await startAgent([shop]);
    await readAs(b.runtime, shop, 'idle');

    const jobs = [];
    for (let n = 10; n < 15; n++) jobs.push(await queue(n));
    for (const job of jobs) {
      expect(await waitFor(`job ${job.id} settled`, () => settled(job.id))).toMatchObject({
        status: 'printed',
        printer: shop.url,
        agent_id: b.runtime.status().agentId,
      });
    }
    for (let n = 10; n < 15; n++) expect(copiesOf(shop, n)).toBe(1);
    expect(front1.printedBuffer().toString('latin1')).not.toContain('RECEIPT');
    expect(front2.printedBuffer().toString('latin1')).not.toContain('RECEIPT');
  });
});
