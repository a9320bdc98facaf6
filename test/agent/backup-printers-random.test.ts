import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRuntime } from '../../agent/core/runtime/agent-runtime.ts';
import { EscposSimulator } from '../helpers/printer-simulators/escpos.ts';
import type { SimulatedCondition } from '../helpers/printer-simulators/simulator.ts';
import { seeded } from '../helpers/seeded-random.ts';
import { waitFor } from '../helpers/wait.ts';
import { type AgentTestServer, startAgentTestServer } from './helpers/agent-test-server.ts';
import { makeStateDir } from './helpers/state-dir.ts';

/**
 * Backup printers under faults at random (docs/agent.md, "Backup printers"): 1,000 receipts
 * on a route of two ESC/POS simulators while each printer runs out of paper, opens its cover
 * or goes offline and recovers, at random moments (seeded: a failure replays), mid-job
 * included. Every receipt must come out exactly once, counted at the printers by the number
 * each one carries. The agent runs in the test's process against the real server, reading
 * the printers every 50 ms and long-polling a second at a time.
 */

const jobs = Number(process.env.BACKUP_PRINTERS_JOBS ?? 200);
const seed = Number(process.env.BACKUP_PRINTERS_SEED ?? 20261128);

const faults: Array<keyof SimulatedCondition> = ['paperEnd', 'coverOpen', 'offline'];
const mark = (n: number) => `RECEIPT-${String(n).padStart(6, '0')};`;

let server: AgentTestServer;
let printers: EscposSimulator[];
let runtime: AgentRuntime;
let cleanupState: () => Promise<void>;

beforeAll(async () => {
  server = await startAgentTestServer({ heartbeatSeconds: 30, longPollWaitSeconds: 1 });
  printers = [await new EscposSimulator().start(), await new EscposSimulator().start()];
  const state = await makeStateDir();
  cleanupState = state.cleanup;
  runtime = new AgentRuntime({
    serverUrl: server.url,
    token: server.token,
    stateDir: state.dir,
    routes: [
      {
        name: 'receipts',
        printer: printers[0]?.url ?? '',
        backup_printers: [printers[1]?.url ?? ''],
        profile: { language: 'escpos', width_mm: 80 },
      },
    ],
    client: { attempts: 1, backoff: { baseMs: 10, maxMs: 50 } },
    reconnect: { baseMs: 20, maxMs: 100 },
    printerCheckMs: 50,
    printerReportDebounceMs: 50,
  });
  await runtime.start();
  await waitFor('connected', () => runtime.status().connection === 'connected');
});
afterAll(async () => {
  await runtime?.stop();
  for (const printer of printers ?? []) await printer.stop();
  await server?.close();
  await cleanupState?.();
});

describe('backup printers under faults at random', () => {
  it(`prints each of ${jobs} receipts exactly once while both printers fail and recover (seed ${seed})`, async () => {
    const random = seeded(seed);
    const started = performance.now();
    let injected = 0;
    let running = true;
    // Each printer, independently: well for 0–600 ms, then a fault for 10–150 ms.
    const drivers = printers.map(async (printer) => {
      while (running && process.env.BACKUP_PRINTERS_FAULTS !== '0') {
        await new Promise((resolve) => setTimeout(resolve, random() * 600));
        if (!running) break;
        const fault = faults[Math.floor(random() * faults.length)] as keyof SimulatedCondition;
        printer.set({ [fault]: true });
        injected++;
        await new Promise((resolve) => setTimeout(resolve, 10 + random() * 140));
        printer.set({ [fault]: false });
      }
    });

    const ids: number[] = [];
    for (let n = 0; n < jobs; n++) {
      const job = await server.createJob({
        route: 'receipts',
        title: `receipt ${n}`,
        content_type: 'application/vnd.escpos',
        content: `\x1b@${mark(n)} table ${n % 40}, ${'.'.repeat(n % 64)}\n`,
      });
      ids.push(job.id);
    }

    // Done when every receipt came out somewhere (read at the printers, no request), or the
    // time is up; the server's records are read once, after.
    const out = () => printers.map((printer) => printer.printedBuffer().toString('latin1'));
    const seen = () =>
      (
        out()
          .join('')
          .match(/RECEIPT-\d{6};/g) ?? []
      ).length;
    await waitFor('every receipt out', () => seen() >= jobs, 540_000).catch(() => {});
    running = false;
    await Promise.all(drivers);
    const seconds = (performance.now() - started) / 1000;

    // The last confirms may still be on their way.
    // Read in groups: a thousand reads at once would pass the server's connection limit.
    const readAll = async () => {
      const read: Awaited<ReturnType<typeof server.job>>[] = [];
      for (let at = 0; at < ids.length; at += 50) {
        read.push(...(await Promise.all(ids.slice(at, at + 50).map((id) => server.job(id)))));
      }
      return read;
    };
    let records = await readAll();
    const settledAll = () =>
      records.every((record) => record.status === 'printed' || record.status === 'failed');
    for (let round = 0; round < 50 && !settledAll(); round++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      records = await readAll();
    }
    const failed = records.filter((record) => record.status !== 'printed');
    expect(failed.map((record) => [record.id, record.error])).toEqual([]);
    const texts = out();
    const copies = (n: number, text: string) => text.split(mark(n)).length - 1;
    const wrong: string[] = [];
    let onBackup = 0;
    for (let n = 0; n < jobs; n++) {
      const [first, second] = texts.map((text) => copies(n, text));
      if ((first ?? 0) + (second ?? 0) !== 1) wrong.push(`${n}: ${first} + ${second}`);
      onBackup += second ?? 0;
      const printedOn = records[n]?.printer;
      expect(printedOn).toBe(printers[(second ?? 0) === 1 ? 1 : 0]?.url);
    }
    expect(wrong).toEqual([]);
    // The faults did reach the jobs: some went to the backup, some were given back.
    expect(onBackup).toBeGreaterThan(0);
    expect(onBackup).toBeLessThan(jobs);
    console.log(
      `${jobs} jobs in ${seconds.toFixed(1)} s, ${injected} faults, ${onBackup} on the backup, seed ${seed}`,
    );
  }, 600_000);
});
