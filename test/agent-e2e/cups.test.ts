import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeStateDir } from '../agent/helpers/state-dir.ts';
import {
  addPdfQueue,
  addRawQueue,
  cupsPdfOutDir,
  minimalPdf,
  newPdfs,
  pdfsIn,
} from '../helpers/cups.ts';
import type { RealAgentTestServer } from '../helpers/real-agent-server.ts';
import { waitFor } from '../helpers/wait.ts';
import { agentArgs, type ShopdeskProcess, spawnShopdesk } from './helpers/agent-process.ts';
import { testAgentRuntime } from './helpers/agent-runtime.ts';
import { closeCupsAndServer, startCupsAndServer } from './helpers/cups-server.ts';
import { bigLabel, type RawPrinter, startRawPrinter } from './helpers/raw-printer.ts';

const execFileAsync = promisify(execFile);
const suffix = randomBytes(3).toString('hex');
const pdfQueue = `shopdesk-e2e-pdf-${suffix}`;
const rawQueue = `shopdesk-e2e-zpl-${suffix}`;
const stoppedQueue = `shopdesk-e2e-stopped-${suffix}`;
const heldQueue = `shopdesk-e2e-held-${suffix}`;

let rawPrinter: RawPrinter;
let heldPrinter: RawPrinter;
let server: RealAgentTestServer;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  server = await startCupsAndServer(async () => {
    rawPrinter = await startRawPrinter();
    heldPrinter = await startRawPrinter();
    await addPdfQueue(pdfQueue);
    await addRawQueue(rawQueue, rawPrinter.port);
    await addRawQueue(stoppedQueue, rawPrinter.port);
    await addRawQueue(heldQueue, heldPrinter.port);
  });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await closeCupsAndServer(server, [pdfQueue, rawQueue, stoppedQueue, heldQueue]);
  heldPrinter?.releaseHeld();
  rawPrinter?.server.close();
  heldPrinter?.server.close();
});

describe('agent + real server + real CUPS', () => {
  it("prints PDF through cups-pdf, ZPL byte for byte on a raw queue, and holds a disabled queue's job, queued", async () => {
    await execFileAsync('cupsdisable', ['-r', `paper out in drawer ${suffix}`, stoppedQueue]);
    const state = await makeStateDir();
    cleanups.push(state.cleanup);
    // The agent's own CUPS back-end (createPrinterBackend): nothing faked between the
    // server and the spooler.
    const runtime = testAgentRuntime(server, state.dir, [
      { name: 'a4', printer: pdfQueue, options: { paper: 'a4' } },
      { name: 'labels', printer: rawQueue },
      { name: 'stuck', printer: stoppedQueue },
    ]);
    cleanups.push(() => runtime.stop());

    const outDir = cupsPdfOutDir();
    const before = await pdfsIn(outDir);
    const title = `E2E_receipt_${suffix}`;
    const zpl = Buffer.concat([
      Buffer.from('^XA^FO50,50^A0N,40,40^FDShopDesk e2e^FS^XZ\r\n', 'latin1'),
      Buffer.from(Array.from({ length: 256 }, (_, byte) => byte)),
    ]);
    const pdfJob = await server.createJob({
      route: 'a4',
      title,
      content_type: 'application/pdf',
      content: minimalPdf('hello through the real server'),
    });
    const zplJob = await server.createJob({
      route: 'labels',
      title: 'Label',
      content_type: 'application/vnd.zebra.zpl',
      content: zpl,
    });
    const stuckJob = await server.createJob({
      route: 'stuck',
      title: 'Stuck',
      content_type: 'application/vnd.zebra.zpl',
      content: '^XA^XZ',
    });
    await runtime.start();

    const done = (status: string) => status === 'printed' || status === 'failed';
    for (const job of [pdfJob, zplJob]) {
      await waitFor(
        `job ${job.id} done on the server`,
        async () => done((await server.job(job.id)).status),
        40_000,
      );
    }

    const pdfAfter = await server.job(pdfJob.id);
    expect(pdfAfter).toMatchObject({ status: 'printed', printer: pdfQueue, error: null });
    // cups-pdf names the file after the title; its output may take a moment after CUPS
    // calls the job completed.
    const created = await newPdfs(outDir, before, title);
    expect(created).toHaveLength(1);
    const pdf = await readFile(join(outDir, created[0]!));
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await rm(join(outDir, created[0]!));

    expect(await server.job(zplJob.id)).toMatchObject({ status: 'printed', printer: rawQueue });
    expect(rawPrinter.received.filter((bytes) => bytes.equals(zpl))).toHaveLength(1);

    // Its route's printer cannot print: the agent claims on its other routes only, so the
    // job waits on the server, never claimed, never in CUPS (test/agent-e2e/hold.test.ts).
    const stuck = await server.job(stuckJob.id);
    expect(stuck).toMatchObject({ status: 'queued', attempts: 0, error: null });
    const { stdout } = await execFileAsync('lpstat', ['-o', stoppedQueue]);
    expect(stdout.trim()).toBe('');
  }, 90_000);
});

describe('crash: shopdesk agent killed with SIGKILL between spooling and confirming', () => {
  it('reports the job agent_interrupted on restart, prints nothing again, and a retry prints it once', async () => {
    const state = await makeStateDir();
    cleanups.push(state.cleanup);
    const args = agentArgs(server, `held=${heldQueue}`, state.dir);
    const processes: ShopdeskProcess[] = [];
    cleanups.push(async () => {
      for (const running of processes) await running.kill('SIGKILL');
    });

    heldPrinter.holding = true;
    // 10 MiB: more than loopback's socket buffers hold while the printer reads nothing.
    const label = bigLabel(`crash ${suffix}`);
    const job = await server.createJob({
      route: 'held',
      title: 'Crash',
      content_type: 'application/vnd.zebra.zpl',
      content: label,
    });
    // Its own temporary folder, inside the state folder the test removes: where its copy of
    // the 10 MiB label goes on the way to lp.
    const agentTmp = join(state.dir, 'tmp');
    mkdirSync(agentTmp);
    const first = spawnShopdesk(args, { TMPDIR: agentTmp });
    processes.push(first);

    // The window: the journal says "spooling" and the printer has the bytes, but CUPS
    // has not finished the job (the printer keeps the connection open), so no confirm yet.
    const journalFile = join(state.dir, 'journal', `${job.id}.json`);
    await waitFor(
      'the job in the spooler (journal spooling, bytes at the printer)',
      () =>
        existsSync(journalFile) &&
        JSON.parse(readFileSync(journalFile, 'utf8')).state === 'spooling' &&
        heldPrinter.held.length === 1,
      // Generous: on a loaded machine cupsd may take a while to start the job.
      60_000,
    ).catch(async (error: Error) => {
      const journal = existsSync(journalFile) ? readFileSync(journalFile, 'utf8') : 'none';
      const spooler = await execFileAsync('lpstat', ['-l', '-o', heldQueue]).then(
        (out) => out.stdout,
        (failure: Error) => failure.message,
      );
      throw new Error(
        `${error.message}; job on the server: ${(await server.job(job.id)).status}; journal: ${journal}; ` +
          `printer connections: ${heldPrinter.connections}; lpstat: ${spooler}; agent stderr: ${first.stderr()}`,
      );
    });
    expect((await server.job(job.id)).status).toBe('claimed');
    // The copy goes as soon as lp has handed the document to CUPS, not after the follow-up:
    // gone while the printer still holds the job (the agent hears lp's exit a moment after
    // CUPS has sent the bytes on).
    await waitFor(
      'the agent removing its copy',
      async () => (await readdir(agentTmp)).length === 0,
    );
    expect(heldPrinter.received).toHaveLength(0);
    expect(await first.kill('SIGKILL')).toBe('SIGKILL');
    expect(first.stdout()).toBe('');

    // The page did come out in the end: the printer closes, CUPS completes the job.
    expect(heldPrinter.received).toHaveLength(0);
    heldPrinter.releaseHeld();
    await waitFor('the page out at the printer', () => heldPrinter.received.length === 1, 30_000);
    expect(heldPrinter.received[0]!.equals(label)).toBe(true);

    const second = spawnShopdesk(args);
    processes.push(second);
    const failed = await waitFor(
      'the job failed on the server',
      async () => {
        const current = await server.job(job.id);
        return current.status === 'failed' ? current : null;
      },
      30_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; agent stderr: ${second.stderr()}`);
    });
    expect(failed.error).toMatchObject({ code: 'agent_interrupted' });
    expect(existsSync(journalFile)).toBe(false);
    await waitFor(
      'the job line on stdout',
      () => second.stdout().includes(`job ${job.id} `),
      10_000,
    );
    expect(second.stdout()).toMatch(
      new RegExp(
        `^job ${job.id} route=held printer=${heldQueue} failed \\d+ ms: .*\\(agent_interrupted\\)\\n$`,
      ),
    );

    // Nothing printed again on its own: give the agent a few long-poll rounds.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(heldPrinter.connections).toBe(1);

    // A retry, as the shop would ask for it, prints it exactly once more.
    const agentId = JSON.parse(readFileSync(join(state.dir, 'agent.json'), 'utf8')).uuid as string;
    const retried = await server.request('POST', `/printing/jobs/${job.id}/retry`, undefined, {
      'x-agent-id': agentId,
    });
    expect(retried.status).toBe(200);
    await waitFor(
      'the retried job printed',
      async () => (await server.job(job.id)).status === 'printed',
      30_000,
    );
    expect(heldPrinter.connections).toBe(2);
    expect(heldPrinter.received.filter((bytes) => bytes.equals(label))).toHaveLength(2);

    expect(await second.kill('SIGTERM')).toBe(0);
  }, 180_000);
});
