import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printerReadiness } from '../../agent/core/printer-readiness.ts';
import { CupsBackend, runFile } from '../../agent/core/printers/cups.ts';
import type { PrinterInfo } from '../../shared/printing.ts';
import { addPdfQueue, addRawQueue, deleteQueue, startTestCups } from '../helpers/cups.ts';
import { closedPort } from '../helpers/ports.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * Printer states read from a real CUPS over IPP Get-Printer-Attributes: what the agent
 * reports for a ready queue, a disabled one, one that refuses jobs, and a network printer
 * that does not answer while a job waits for it.
 */

const execFileAsync = promisify(execFile);
const suffix = randomBytes(3).toString('hex');
const pdfQueue = `shopdesk-state-pdf-${suffix}`;
const deadQueue = `shopdesk-state-dead-${suffix}`;
const backend = new CupsBackend();

/** A printer's state as listed (its capabilities are test/agent-e2e/capabilities.test.ts's). */
async function listed(name: string): Promise<PrinterInfo | undefined> {
  const found = (await backend.listPrinters()).find((printer) => printer.name === name);
  if (!found) return undefined;
  const { capabilities: _capabilities, ...state } = found;
  return state;
}

beforeAll(async () => {
  await startTestCups();
  await addPdfQueue(pdfQueue);
  await addRawQueue(deadQueue, await closedPort());
});

afterAll(async () => {
  await execFileAsync('cancel', ['-a', deadQueue]).catch(() => {});
  for (const queue of [pdfQueue, deadQueue]) await deleteQueue(queue);
});

describe('CUPS printer states against real CUPS', () => {
  it('reports a cups-pdf queue idle and accepting jobs', async () => {
    expect(await listed(pdfQueue)).toEqual({
      name: pdfQueue,
      is_default: false,
      state: 'idle',
      reasons: [],
      accepting_jobs: true,
      message: null,
    });
  });

  it('reports a disabled queue stopped with its reason, then idle once enabled', async () => {
    await execFileAsync('cupsdisable', ['-r', `Paper out ${suffix}`, pdfQueue]);
    try {
      const stopped = await listed(pdfQueue);
      expect(stopped).toEqual({
        name: pdfQueue,
        is_default: false,
        state: 'stopped',
        reasons: ['paused'],
        accepting_jobs: true,
        message: `Paper out ${suffix}`,
      });
      expect(printerReadiness(stopped!)).toBe('not-ready');
    } finally {
      await execFileAsync('cupsenable', [pdfQueue]);
    }
    expect(await listed(pdfQueue)).toMatchObject({ state: 'idle', reasons: [], message: null });
  });

  it('reports a queue that rejects jobs as not accepting them (cupsreject)', async () => {
    await execFileAsync('cupsreject', ['-r', `Closed for stock-taking ${suffix}`, pdfQueue]);
    try {
      const rejecting = await listed(pdfQueue);
      // CUPS keeps the queue idle; only printer-is-accepting-jobs says it.
      expect(rejecting).toMatchObject({
        state: 'idle',
        reasons: [],
        accepting_jobs: false,
        message: `Closed for stock-taking ${suffix}`,
      });
      expect(printerReadiness(rejecting!)).toBe('not-ready');
    } finally {
      await execFileAsync('cupsaccept', [pdfQueue]);
    }
    expect(await listed(pdfQueue)).toMatchObject({ accepting_jobs: true });
  });

  it('reports what CUPS says of a network printer that refuses the connection while a job waits', async () => {
    expect(await listed(deadQueue)).toMatchObject({ state: 'idle', reasons: [] });
    await execFileAsync('lp', ['-d', deadQueue, '-o', 'raw', '-t', 'dead', '/etc/hostname']);
    // CUPS 2.4 keeps the job processing, retries the socket every 30 s, and says so only in
    // printer-state-message: no offline reason, so the state is `printing`. Before the first
    // attempt fails the message is "Connecting to printer.", so wait for the one after it.
    const refused = 'The printer may not exist or is unavailable at this time.';
    const waiting = await waitFor(
      'the socket backend to give up its first attempt',
      async () => {
        const printer = await listed(deadQueue);
        return printer?.message === refused ? printer : null;
      },
      30_000,
    );
    expect(waiting).toEqual({
      name: deadQueue,
      is_default: false,
      state: 'printing',
      reasons: [],
      accepting_jobs: true,
      message: refused,
    });
    expect(printerReadiness(waiting)).toBe('ready');
    await execFileAsync('cancel', ['-a', deadQueue]);
  }, 60_000);

  it('reports a name CUPS has no queue for as unknown', async () => {
    expect(await backend.printerStatus(`shopdesk-no-such-queue-${suffix}`)).toEqual({
      state: 'unknown',
      reasons: [],
      accepting_jobs: null,
      message: null,
    });
  });
});

describe('the names lpstat gives are kept a minute; the states are read at every call', () => {
  /** A back-end whose `lpstat -e` names `names` (real IPP for the states), counting its runs. */
  function backendNaming(names: string[]) {
    const runs: string[] = [];
    const counted = new CupsBackend({
      runFile: async (file, args, options) => {
        if (file !== 'lpstat') return runFile(file, args, options);
        runs.push(args.join(' '));
        return { stdout: args[0] === '-e' ? `${names.join('\n')}\n` : '', stderr: '' };
      },
    });
    return { counted, runs };
  }

  it('starts lpstat again only when a routed printer is not named, or fresh is asked', async () => {
    const { counted, runs } = backendNaming([pdfQueue]);
    await counted.listPrinters([pdfQueue]);
    expect(runs).toEqual(['-e', '-d']);
    const again = await counted.listPrinters([pdfQueue]);
    expect(runs).toHaveLength(2);
    expect(again.map((printer) => [printer.name, printer.state])).toEqual([[pdfQueue, 'idle']]);
    await counted.listPrinters([pdfQueue, `shopdesk-state-new-${suffix}`]);
    expect(runs).toHaveLength(4);
    await counted.listPrinters([pdfQueue], true);
    expect(runs).toHaveLength(6);
  });

  it('reads the names again after a state that cannot be read (a queue removed)', async () => {
    const { counted, runs } = backendNaming([pdfQueue, `shopdesk-state-gone-${suffix}`]);
    const printers = await counted.listPrinters();
    expect(printers.map((printer) => printer.state)).toEqual(['idle', 'unknown']);
    await counted.listPrinters();
    expect(runs).toHaveLength(4);
  });

  it('follows a state change at once, without lpstat', async () => {
    const { counted, runs } = backendNaming([pdfQueue]);
    await counted.listPrinters();
    await execFileAsync('cupsdisable', [pdfQueue]);
    try {
      const [stopped] = await counted.listPrinters();
      expect(stopped?.state).toBe('stopped');
    } finally {
      await execFileAsync('cupsenable', [pdfQueue]);
    }
    expect(runs).toHaveLength(2);
  });
});
