import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CupsBackend, lpArguments } from '../../agent/core/printers/cups.ts';
import {
  addPdfQueue,
  addRawQueue,
  deleteQueue,
  minimalPdf,
  startTestCups,
} from '../helpers/cups.ts';

const execFileAsync = promisify(execFile);
const suffix = randomBytes(3).toString('hex');
const pdfQueue = `shopdesk-pdf-${suffix}`;
const rawQueue = `shopdesk-zpl-${suffix}`;
const stoppedQueue = `shopdesk-stopped-${suffix}`;

/** A TCP listener standing in for a label printer's port 9100: collects each connection's bytes. */
interface RawPrinter {
  server: Server;
  port: number;
  received: Buffer[];
}

async function startRawPrinter(): Promise<RawPrinter> {
  const received: Buffer[] = [];
  const server = createServer((socket) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => {
      socket.end();
      received.push(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port, received };
}
let rawPrinter: RawPrinter;
const backend = new CupsBackend({ completionTimeoutMs: 30_000, pollIntervalMs: 100 });

beforeAll(async () => {
  await startTestCups();
  rawPrinter = await startRawPrinter();
  await addPdfQueue(pdfQueue);
  await addRawQueue(rawQueue, rawPrinter.port);
  await addRawQueue(stoppedQueue, rawPrinter.port);
});

afterAll(async () => {
  for (const queue of [pdfQueue, rawQueue, stoppedQueue]) await deleteQueue(queue);
  rawPrinter?.server.close();
});

describe('CUPS back-end against real CUPS', () => {
  it('prints a PDF job to a cups-pdf queue, which comes out as a PDF file', async () => {
    const outDir = join(userInfo().homedir, 'PDF');
    const before = new Set(existsSync(outDir) ? await readdir(outDir) : []);
    const outcome = await backend.print(
      { id: 1, title: 'Receipt 1', content_type: 'application/pdf', copies: 1 },
      minimalPdf('hello from shopdesk'),
      pdfQueue,
      { paper: 'a4' },
    );
    expect(outcome).toMatchObject({ ok: true, printer: pdfQueue });
    const spoolerJob = outcome.spoolerJobId!.split('-').pop();
    const created = (await readdir(outDir)).filter(
      (name) => !before.has(name) && name.includes(`job_${spoolerJob}`),
    );
    expect(created).toHaveLength(1);
    const pdf = await readFile(join(outDir, created[0]!));
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await rm(join(outDir, created[0]!));
  });

  it('sends a ZPL job on a raw socket queue to the printer byte for byte', async () => {
    // Every byte value, so that any filtering or re-encoding on the way would show.
    const zpl = Buffer.concat([
      Buffer.from('^XA^FO50,50^A0N,40,40^FDShopDesk label^FS^XZ\r\n', 'latin1'),
      Buffer.from(Array.from({ length: 256 }, (_, byte) => byte)),
    ]);
    const outcome = await backend.print(
      { id: 2, title: 'Label', content_type: 'application/vnd.zebra.zpl', copies: 1 },
      zpl,
      rawQueue,
      {},
    );
    expect(outcome).toMatchObject({ ok: true, printer: rawQueue });
    // CUPS calls a job completed once the backend closed the connection.
    expect(rawPrinter.received.some((bytes) => bytes.equals(zpl))).toBe(true);
  });

  it('fails a job on a disabled queue with the reason, and cancels it in CUPS', async () => {
    await execFileAsync('cupsdisable', ['-r', 'paper jam in tray 2', stoppedQueue]);
    const outcome = await backend.print(
      { id: 3, title: 'Stuck', content_type: 'application/vnd.zebra.zpl', copies: 1 },
      Buffer.from('^XA^XZ'),
      stoppedQueue,
      {},
    );
    expect(outcome).toMatchObject({ ok: false, code: 'printer_stopped' });
    expect(outcome.ok ? '' : outcome.message).toContain('paper jam in tray 2');
    const { stdout } = await execFileAsync('lpstat', ['-o', stoppedQueue]);
    expect(stdout.trim()).toBe('');
  });

  it('fails with spooler_rejected when the queue does not exist', async () => {
    const outcome = await backend.print(
      { id: 4, title: null, content_type: 'text/plain', copies: 1 },
      Buffer.from('hello'),
      `no-such-queue-${suffix}`,
      {},
    );
    expect(outcome).toMatchObject({ ok: false, code: 'spooler_rejected' });
  });

  it('lists the queues, with the test queues among them', async () => {
    const names = (await backend.listPrinters()).map((printer) => printer.name);
    expect(names).toEqual(expect.arrayContaining([pdfQueue, rawQueue]));
  });
});

describe('CUPS back-end: injection (security)', () => {
  const payloads = [`'; touch pwned #`, '$(touch pwned)', '`touch pwned`', '"; touch pwned; "'];
  const watched = [process.cwd(), tmpdir()];

  function pwnedFiles(): string[] {
    return watched.map((dir) => join(dir, 'pwned')).filter((path) => existsSync(path));
  }

  it('the detector works: the same payload through a shell does create the file', async () => {
    const dir = tmpdir();
    await execFileAsync('sh', ['-c', `echo ${payloads[1]}`], { cwd: dir });
    expect(pwnedFiles()).toEqual([join(dir, 'pwned')]);
    await rm(join(dir, 'pwned'));
  });

  it.each(payloads)('a title %s is printed as a title and runs nothing', async (payload) => {
    const outcome = await backend.print(
      { id: 5, title: payload, content_type: 'application/vnd.zebra.zpl', copies: 1 },
      Buffer.from('^XA^XZ'),
      rawQueue,
      {},
    );
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true });
    expect(pwnedFiles()).toEqual([]);
  });

  it.each(payloads)('a printer name %s is refused before anything runs', async (payload) => {
    const outcome = await backend.print(
      { id: 6, title: 'x', content_type: 'text/plain', copies: 1 },
      Buffer.from('x'),
      payload,
      {},
    );
    expect(outcome).toMatchObject({ ok: false, code: 'invalid_printer' });
    expect(pwnedFiles()).toEqual([]);
  });

  it.each(payloads)('an option value %s is refused by the options schema', async (payload) => {
    const outcome = await backend.print(
      { id: 7, title: 'x', content_type: 'application/pdf', copies: 1 },
      minimalPdf('x'),
      pdfQueue,
      // Cast: the server's schema would refuse it; the back-end must not trust that.
      { pages: payload } as never,
    );
    expect(outcome).toMatchObject({ ok: false, code: 'invalid_options' });
    expect(pwnedFiles()).toEqual([]);
  });

  it('puts the title into one argument, unchanged', () => {
    const args = lpArguments(
      { id: 8, title: payloads[0]!, content_type: 'application/pdf', copies: 2 },
      'A4',
      { duplex: 'long-edge', orientation: 'landscape', fit: true, pages: '1-3,5', paper: 'a5' },
      '/tmp/x/job-8',
    );
    expect(args).toEqual([
      '-d',
      'A4',
      '-n',
      '2',
      '-t',
      payloads[0],
      '-o',
      'media=A5',
      '-o',
      'sides=two-sided-long-edge',
      '-o',
      'orientation-requested=4',
      '-o',
      'fit-to-page',
      '-o',
      'page-ranges=1-3,5',
      '/tmp/x/job-8',
    ]);
  });
});

describe('CUPS back-end when the scheduler cannot be asked', () => {
  it('says the job may have printed when its state cannot be read', async () => {
    const calls: string[][] = [];
    const blind = new CupsBackend({
      // Port 9 (discard) refuses connections here: no IPP answer.
      cupsUrl: 'http://127.0.0.1:9',
      pollIntervalMs: 10,
      runFile: async (file, args) => {
        calls.push([file, ...args]);
        return { stdout: 'request id is Front-5 (1 file(s))\n', stderr: '' };
      },
    });
    const outcome = await blind.print(
      { id: 1, title: 't', content_type: 'application/pdf', copies: 1 },
      minimalPdf('x'),
      'Front',
      {},
    );
    expect(outcome).toMatchObject({ ok: false, code: 'printer_error', spoolerJobId: 'Front-5' });
    expect(outcome.ok ? '' : outcome.message).toContain('check the printer before retrying');
    expect(calls.map((call) => call[0])).toEqual(['lp']);
  });
});

describe('CUPS back-end: its temporary copy of the document', () => {
  it('is named with the prefix given, exists while lp runs, and is gone before the follow-up', async () => {
    let copy = '';
    const seen: Array<[string, boolean]> = [];
    const backend = new CupsBackend({
      tempPrefix: 'shopdesk-print-0123abcd-',
      cupsUrl: 'http://127.0.0.1:9',
      pollIntervalMs: 10,
      runFile: async (file, args) => {
        copy = args.at(-1)!;
        seen.push([file, existsSync(copy)]);
        return { stdout: 'request id is Front-9 (1 file(s))\n', stderr: '' };
      },
      sleep: async () => {
        seen.push(['follow-up', existsSync(copy)]);
      },
    });
    await backend.print(
      { id: 9, title: 't', content_type: 'application/vnd.zebra.zpl', copies: 1 },
      Buffer.from('^XA^XZ'),
      'Front',
      {},
    );
    expect(basename(dirname(copy))).toMatch(/^shopdesk-print-0123abcd-\w{6}$/);
    expect(dirname(dirname(copy))).toBe(tmpdir());
    expect(seen[0]).toEqual(['lp', true]);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.slice(1).every(([what, exists]) => what === 'follow-up' && !exists)).toBe(true);
    expect(existsSync(dirname(copy))).toBe(false);
  });
});

describe('CUPS back-end: is the scheduler running', () => {
  it.each([
    ['scheduler is running\n', null],
    ['scheduler is not running\n', 'CUPS is not running (lpstat -r: scheduler is not running)'],
  ])('lpstat -r saying %j → %j', async (stdout, problem) => {
    const backend = new CupsBackend({ runFile: async () => ({ stdout, stderr: '' }) });
    expect(await backend.spoolerProblem()).toBe(problem);
  });

  it('says so when there is no lpstat at all', async () => {
    const backend = new CupsBackend({
      runFile: async () => {
        throw Object.assign(new Error('spawn lpstat ENOENT'), { code: 'ENOENT' });
      },
    });
    expect(await backend.spoolerProblem()).toBe('CUPS is not installed (no lpstat on the PATH)');
  });
});

describe('CUPS back-end following a job over IPP', () => {
  it('rides out a dropped IPP request and reports the job completed', async () => {
    // A stand-in scheduler: drops the first request, then says job-state = completed (9).
    const { createServer: createHttpServer } = await import('node:http');
    let requests = 0;
    const completed = Buffer.concat([
      Buffer.from([2, 0, 0, 0, 0, 0, 0, 1, 0x02]), // IPP 2.0, successful-ok, id 1, job group
      Buffer.from([0x23, 0, 9]), // enum, name length 9
      Buffer.from('job-state'),
      Buffer.from([0, 4, 0, 0, 0, 9, 0x03]), // value 9, end of attributes
    ]);
    const scheduler = createHttpServer((req, res) => {
      requests++;
      if (requests === 1) {
        req.socket.destroy();
        return;
      }
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/ipp' }).end(completed));
    });
    await new Promise<void>((resolve) => scheduler.listen(0, '127.0.0.1', resolve));
    const port = (scheduler.address() as { port: number }).port;
    try {
      const backend = new CupsBackend({
        cupsUrl: `http://127.0.0.1:${port}`,
        pollIntervalMs: 10,
        runFile: async () => ({ stdout: 'request id is Front-7 (1 file(s))\n', stderr: '' }),
      });
      const outcome = await backend.print(
        { id: 1, title: 't', content_type: 'application/vnd.zebra.zpl', copies: 1 },
        Buffer.from('^XA^XZ'),
        'Front',
        {},
      );
      expect(outcome).toEqual({ ok: true, printer: 'Front', spoolerJobId: 'Front-7' });
      expect(requests).toBe(2);
    } finally {
      scheduler.close();
    }
  });
});
