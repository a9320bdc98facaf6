import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cupsPdfOutDir, lpadmin, minimalPdf, newPdfs, pdfsIn } from '../helpers/cups.ts';
import type { RealAgentTestServer } from '../helpers/real-agent-server.ts';
import { waitFor } from '../helpers/wait.ts';
import {
  closeCupsAndServer,
  startAgentRuntime,
  startCupsAndServer,
} from './helpers/cups-server.ts';
import { printerOnServer } from './helpers/server-printers.ts';

/**
 * Printer capabilities end to end: real CUPS (a cups-pdf queue, whose PPD lists its paper
 * sizes and no duplex) → the agent's IPP read → the agent record → the check at
 * `POST /printing/jobs` → `lp -o media=…` → the PDF cups-pdf writes (docs/printing.md,
 * "Printer capabilities").
 */
const execFileAsync = promisify(execFile);
const suffix = randomBytes(3).toString('hex');
const queue = `shopdesk-e2e-caps-${suffix}`;

let server: RealAgentTestServer;
let agent: Awaited<ReturnType<typeof startAgentRuntime>> | undefined;

beforeAll(async () => {
  server = await startCupsAndServer(() =>
    lpadmin(['-p', queue, '-E', '-v', 'cups-pdf:/', '-m', 'lsb/usr/cups-pdf/CUPS-PDF_opt.ppd']),
  );
  agent = await startAgentRuntime(server, [{ name: 'a4', printer: queue }]);
});

afterAll(async () => {
  await agent?.stop();
  await closeCupsAndServer(server, [queue]);
});

describe('printer capabilities through real CUPS', () => {
  it("reports the queue's paper sizes, duplex and colour under capabilities in GET /printing/agents", async () => {
    const printer = await printerOnServer(server, queue, (capabilities) => capabilities);
    expect(printer.capabilities).toMatchObject({
      duplex: ['none'],
      color: ['color', 'monochrome'],
    });
    // The PPD's sizes in the options' words (it has no A6).
    expect(printer.capabilities.paper).toEqual(
      expect.arrayContaining(['a3', 'a4', 'a5', 'letter', 'legal']),
    );
    expect(printer.capabilities.paper).not.toContain('a6');
  });

  it('prints paper: a5 as an A5 page (pdfinfo)', async () => {
    const outDir = cupsPdfOutDir();
    const before = await pdfsIn(outDir);
    const title = `E2E_a5_${suffix}`;
    const job = await server.createJob({
      route: 'a4',
      title,
      content_type: 'application/pdf',
      content: minimalPdf('A5 please'),
      options: { paper: 'a5', fit: true },
    });
    await waitFor(
      `job ${job.id} printed`,
      async () => (await server.job(job.id)).status === 'printed',
      40_000,
    );
    const [file] = await newPdfs(outDir, before, title);
    const { stdout } = await execFileAsync('pdfinfo', [join(outDir, file!)]);
    await rm(join(outDir, file!));
    // ISO A5 is 148 × 210 mm, 419.53 × 595.28 pt; the PPD rounds it to 421 × 595.
    const size = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(stdout);
    expect(size, stdout).not.toBeNull();
    const [width, height] = [Number(size![1]), Number(size![2])].sort((a, b) => a - b);
    expect(Math.abs(width! - 419.53), stdout).toBeLessThan(2);
    expect(Math.abs(height! - 595.28), stdout).toBeLessThan(2);
  });

  it('refuses duplex: long-edge at POST /printing/jobs with a 422 naming what the printers support', async () => {
    const answer = await server.request('POST', '/printing/jobs', {
      route: 'a4',
      content_type: 'application/pdf',
      content_base64: minimalPdf('two sides').toString('base64'),
      options: { duplex: 'long-edge' },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors['options.duplex']).toEqual([
      'No printer serving route a4 can print duplex long-edge; they support duplex: none.',
    ]);
    const paper = await server.request('POST', '/printing/jobs', {
      route: 'a4',
      content_type: 'application/pdf',
      content_base64: minimalPdf('tiny').toString('base64'),
      options: { paper: 'a6' },
    });
    expect(paper.status).toBe(422);
    expect(paper.body.errors['options.paper'][0]).toMatch(
      /^No printer serving route a4 can print paper a6; they support paper: a3, a4, a5, /,
    );
  });

  it('queues a job for a route no agent serves online, unchecked, with route_online false', async () => {
    const answer = await server.request('POST', '/printing/jobs', {
      route: 'nobody-here',
      content_type: 'application/pdf',
      content_base64: minimalPdf('later').toString('base64'),
      options: { duplex: 'long-edge' },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.data.route_online).toBe(false);
  });
});
