import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDetail } from '../../shared/printing.ts';
import { makeStateDir } from '../agent/helpers/state-dir.ts';
import { addPdfQueue, cupsPdfOutDir, minimalPdf } from '../helpers/cups.ts';
import type { RealAgentTestServer } from '../helpers/real-agent-server.ts';
import { waitFor } from '../helpers/wait.ts';
import { spawnAgent } from './helpers/agent-process.ts';
import { testAgentRuntime } from './helpers/agent-runtime.ts';
import { closeCupsAndServer, startCupsAndServer } from './helpers/cups-server.ts';

/**
 * Hold, don't fail: a printer that cannot print (a cups-pdf queue stopped as a fault would,
 * `cupsdisable -r "Paper out"`) keeps its jobs waiting on the server, queued, instead of
 * failing them; once it can print again they print by themselves, in order, each once.
 */

const execFileAsync = promisify(execFile);
const suffix = randomBytes(3).toString('hex');
const waitingQueue = `shopdesk-e2e-hold-${suffix}`;
const stoppingQueue = `shopdesk-e2e-giveback-${suffix}`;
let server: RealAgentTestServer;
const outDir = cupsPdfOutDir();

beforeAll(async () => {
  server = await startCupsAndServer(async () => {
    await addPdfQueue(waitingQueue);
    await addPdfQueue(stoppingQueue);
  });
});

afterAll(() => closeCupsAndServer(server, [waitingQueue, stoppingQueue]));

/** The PDFs cups-pdf wrote for titles starting with `prefix` (it names files after the title). */
async function pdfsOf(prefix: string): Promise<string[]> {
  const names = existsSync(outDir) ? await readdir(outDir) : [];
  return names.filter((name) => name.includes(prefix) && name.endsWith('.pdf')).sort();
}

async function detail(id: number): Promise<JobDetail> {
  const answer = await server.request('GET', `/printing/jobs/${id}`);
  expect(answer.status).toBe(200);
  return answer.body.data as JobDetail;
}

describe('a printer out of paper holds its jobs', () => {
  it('shopdesk agent claims nothing while the queue is stopped; cupsenable prints them by themselves, in order, each once', async ({
    onTestFinished,
  }) => {
    await execFileAsync('cupsdisable', ['-r', 'Paper out', waitingQueue]);
    const state = await makeStateDir();
    onTestFinished(state.cleanup);
    const agent = spawnAgent(server, `receipts=${waitingQueue}`, state.dir);
    onTestFinished(() => void agent.kill('SIGTERM'));
    await waitFor(
      'the agent holding',
      () => agent.stderr().includes('no route can print now'),
      20_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; stderr: ${agent.stderr()}`);
    });

    const prefix = `hold_${suffix}_`;
    const jobs = [];
    for (const n of [1, 2, 3]) {
      jobs.push(
        await server.createJob({
          route: 'receipts',
          title: `${prefix}${n}`,
          content_type: 'application/pdf',
          content: minimalPdf(`receipt ${n}`),
        }),
      );
    }
    // Long enough for a claim and a print (the job failed 295 ms after its claim before).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const job of jobs) {
      const now = await detail(job.id);
      expect(now).toMatchObject({
        status: 'queued',
        attempts: 0,
        error: null,
        wait_reason: {
          code: 'printer_out_of_paper',
          message: `printer ${waitingQueue} is out of paper: Paper out`,
        },
      });
    }
    expect(await pdfsOf(prefix)).toEqual([]);
    const { stdout } = await execFileAsync('lpstat', ['-o', waitingQueue]);
    expect(stdout.trim()).toBe('');

    await execFileAsync('cupsenable', [waitingQueue]);
    for (const job of jobs) {
      await waitFor(
        `job ${job.id} printed`,
        async () => (await server.job(job.id)).status === 'printed',
        40_000,
      );
    }
    const printed = await Promise.all(jobs.map((job) => detail(job.id)));
    // In order: each claimed after the one before was printed (one job at a time).
    const claimedAt = printed.map((job) => Date.parse(job.claimed_at!));
    expect([...claimedAt].sort((a, b) => a - b)).toEqual(claimedAt);
    for (const job of printed) {
      expect(job.attempts).toBe(1);
      expect(job.events.map((event) => event.to)).toEqual(['queued', 'claimed', 'printed']);
    }
    const files = await waitFor(
      'three PDFs',
      async () => {
        const names = await pdfsOf(prefix);
        return names.length >= 3 ? names : null;
      },
      15_000,
    );
    // Each once: one file per title, none twice.
    expect(files).toHaveLength(3);
    for (const n of [1, 2, 3]) {
      expect(files.filter((name) => name.includes(`${prefix}${n}`))).toHaveLength(1);
    }
    for (const name of files) await rm(join(outDir, name));
  }, 90_000);

  it('gives back a job it holds when the printer stops, queued again under its id, and prints it once the printer can', async ({
    onTestFinished,
  }) => {
    const state = await makeStateDir();
    onTestFinished(state.cleanup);
    // Its printers read every 3 s: the job below is claimed before the agent sees the stop.
    const runtime = testAgentRuntime(
      server,
      state.dir,
      [{ name: 'tickets', printer: stoppingQueue }],
      { printerCheckMs: 3000 },
    );
    onTestFinished(() => runtime.stop());
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    await waitFor('its long-poll waiting', () => server.agentsWaiting());

    await execFileAsync('cupsdisable', ['-r', 'Paper out', stoppingQueue]);
    const prefix = `giveback_${suffix}`;
    const job = await server.createJob({
      route: 'tickets',
      title: prefix,
      content_type: 'application/pdf',
      content: minimalPdf('given back'),
    });
    await waitFor('given back', async () => {
      const now = await detail(job.id);
      return now.status === 'queued' && now.events.length === 3;
    });
    const back = await detail(job.id);
    expect(back).toMatchObject({ status: 'queued', attempts: 1, error: null, agent_id: null });
    expect(back.events.map((event) => event.to)).toEqual(['queued', 'claimed', 'queued']);
    expect(back.events[2]!.message).toContain('given back unprinted (printer_out_of_paper)');
    await waitFor('its reason on the server', async () => {
      return (await detail(job.id)).wait_reason?.code === 'printer_out_of_paper';
    });
    expect(await pdfsOf(prefix)).toEqual([]);

    await execFileAsync('cupsenable', [stoppingQueue]);
    await waitFor('printed', async () => (await server.job(job.id)).status === 'printed', 40_000);
    const printed = await detail(job.id);
    expect(printed.events.map((event) => event.to)).toEqual([
      'queued',
      'claimed',
      'queued',
      'claimed',
      'printed',
    ]);
    const files = await waitFor(
      'its PDF',
      async () => {
        const names = await pdfsOf(prefix);
        return names.length > 0 ? names : null;
      },
      15_000,
    );
    expect(files).toHaveLength(1);
    for (const name of files) await rm(join(outDir, name));
  }, 90_000);
});

describe('a clean stop', () => {
  it('shopdesk agent stopped with SIGTERM shows offline at once, its printers unknown with their last state', async ({
    onTestFinished,
  }) => {
    const state = await makeStateDir();
    onTestFinished(state.cleanup);
    const agent = spawnAgent(server, `offline=${stoppingQueue}`, state.dir);
    onTestFinished(() => void agent.kill('SIGKILL'));
    const agentId = await waitFor(
      'registered',
      async () => {
        const answer = await server.request('GET', '/printing/agents');
        const found = answer.body.data.find((listed: { routes: { name: string }[] }) =>
          listed.routes.some((route) => route.name === 'offline'),
        );
        return found?.online ? (found.id as string) : null;
      },
      20_000,
    );
    const before = (await server.request('GET', `/printing/agents/${agentId}`)).body.data;
    const printer = before.printers.find((p: { name: string }) => p.name === stoppingQueue);
    expect(printer).toMatchObject({ state: 'idle' });
    expect(printer.last_known).toBeUndefined();

    const stoppedAt = Date.now();
    expect(await agent.kill('SIGTERM')).toBe(0);
    // The server's online interval is 30 s: only the agent's own word makes it offline now.
    const after = (await server.request('GET', `/printing/agents/${agentId}`)).body.data;
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(after.online).toBe(false);
    expect(after.printers.find((p: { name: string }) => p.name === stoppingQueue)).toMatchObject({
      state: 'unknown',
      accepting_jobs: null,
      last_known: { state: 'idle', at: after.last_seen_at },
    });
  }, 60_000);
});
