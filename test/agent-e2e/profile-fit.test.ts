import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogLine } from '../../agent/core/status.ts';
import { addPdfQueue, cupsPdfOutDir, pdfsIn } from '../helpers/cups.ts';
import type { RealAgentTestServer } from '../helpers/real-agent-server.ts';
import { waitFor } from '../helpers/wait.ts';
import {
  closeCupsAndServer,
  startAgentRuntime,
  startCupsAndServer,
} from './helpers/cups-server.ts';
import { printerOnServer } from './helpers/server-printers.ts';

/**
 * A profile that does not fit its printer, through real CUPS (docs/printing.md, "Profiles
 * that fit their printer"): a route whose profile is ESC/POS 80 mm mapped to a cups-pdf
 * queue would "print" a blank page and call it printed. The agent reads what the queue takes
 * (a driver queue: PDF and text), does not claim on the route, says so in its log, and the
 * job waits with `printer_misconfigured`; cups-pdf writes nothing.
 */
const suffix = randomBytes(3).toString('hex');
const queue = `shopdesk-e2e-fit-${suffix}`;

let server: RealAgentTestServer;
let agent: Awaited<ReturnType<typeof startAgentRuntime>> | undefined;
const lines: LogLine[] = [];

beforeAll(async () => {
  server = await startCupsAndServer(() => addPdfQueue(queue));
  const profile = { language: 'escpos', width_mm: 80 } as const;
  agent = await startAgentRuntime(server, [{ name: 'till', printer: queue, profile }], (runtime) =>
    runtime.onLog((line) => lines.push(line)),
  );
});

afterAll(async () => {
  await agent?.stop();
  await closeCupsAndServer(server, [queue]);
});

describe('an ESC/POS profile on a cups-pdf queue', () => {
  it('reports that the queue takes PDF and text', async () => {
    const printer = await printerOnServer(server, queue, (capabilities) => capabilities?.languages);
    expect(printer.capabilities.languages).toEqual(['pdf', 'text']);
  });

  it('holds the job with its reason instead of printing a blank page, and says so in its log', async () => {
    const outDir = cupsPdfOutDir();
    const before = await pdfsIn(outDir);
    const title = `E2E_fit_${suffix}`;
    const job = await server.createJob({
      route: 'till',
      title,
      content_type: 'application/vnd.escpos',
      content: Buffer.from('\x1b@Receipt 1\n\n\n\x1dV\x00', 'latin1'),
    });
    const misfit = `misconfigured: ${queue} takes PDF, the profile says ESC/POS`;
    expect(job.wait_reason).toEqual({ code: 'printer_misconfigured', message: misfit });
    await waitFor(
      'the agent log naming the route',
      async () =>
        lines.some(
          (line) =>
            line.level === 'warn' &&
            line.message === `route till is ${misfit}; its jobs wait on the server`,
        ),
      10_000,
    );
    // Long enough for a claim and cups-pdf's write, were the agent to take it.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const read = await server.job(job.id);
    expect(read.status).toBe('queued');
    expect(read.attempts).toBe(0);
    expect(read.wait_reason).toEqual({ code: 'printer_misconfigured', message: misfit });
    const written = [...(await pdfsIn(outDir))].filter(
      (name) => !before.has(name) && name.includes(title),
    );
    expect(written).toEqual([]);
  });
});
