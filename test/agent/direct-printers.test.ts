import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { describePrinterState, printerReadiness } from '../../agent/core/printer-readiness.ts';
import type { PrintableJob } from '../../agent/core/printers/backend.ts';
import { DirectBackend } from '../../agent/core/printers/direct.ts';
import { createPrinterBackend } from '../../agent/core/printers/index.ts';
import type { PrinterLanguage } from '../../shared/printer-profiles.ts';
import type { PrinterInfo } from '../../shared/printing.ts';
import { closedPort } from '../helpers/ports.ts';
import { EscposSimulator } from '../helpers/printer-simulators/escpos.ts';
import type { PrinterSimulator } from '../helpers/printer-simulators/simulator.ts';
import { StarprntSimulator } from '../helpers/printer-simulators/starprnt.ts';
import { ZplSimulator } from '../helpers/printer-simulators/zpl.ts';

const started: PrinterSimulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((simulator) => simulator.stop()));
});

async function run<T extends PrinterSimulator>(simulator: T): Promise<T> {
  started.push(simulator);
  return simulator.start();
}

function backendFor(language: PrinterLanguage, confirmTimeoutMs = 2000): DirectBackend {
  return new DirectBackend({
    languageOf: () => language,
    connectTimeoutMs: 1000,
    statusTimeoutMs: 1000,
    confirmTimeoutMs,
  });
}

const job = (contentType: PrintableJob['content_type']): PrintableJob => ({
  id: 7,
  title: 'receipt',
  content_type: contentType,
  copies: 1,
});

async function stateOf(backend: DirectBackend, printer: string): Promise<PrinterInfo> {
  const [info] = await backend.listPrinters([printer]);
  if (!info) throw new Error('not listed');
  return info;
}

// A receipt: ESC @, text, a feed and a cut (GS V 66 0), as the templates render one.
const receipt = Buffer.concat([
  Buffer.from([0x1b, 0x40]),
  Buffer.from('Coffee          2.50\nTotal           2.50\n'.repeat(40), 'ascii'),
  Buffer.from([0x1d, 0x56, 0x42, 0x00]),
]);

describe('printers reached directly: ESC/POS (DLE EOT, GS a, GS ( H)', () => {
  it('lists a ready printer as idle, answering in escpos', async () => {
    const printer = await run(new EscposSimulator());
    const info = await stateOf(backendFor('escpos'), printer.url);
    expect(info).toEqual({
      name: printer.url,
      is_default: false,
      state: 'idle',
      reasons: [],
      accepting_jobs: null,
      message: null,
      capabilities: { languages: ['escpos'] },
    });
    expect(printerReadiness(info)).toBe('ready');
    // A status read prints nothing.
    expect(printer.printedBytes).toBe(0);
  });

  it('paper end: stopped with media-empty-error; a job gets not one byte and is known not printed', async () => {
    const printer = await run(new EscposSimulator());
    printer.set({ paperEnd: true });
    const backend = backendFor('escpos');
    const info = await stateOf(backend, printer.url);
    expect(info.state).toBe('stopped');
    expect(info.reasons).toEqual(['media-empty-error', 'offline-report']);
    expect(printerReadiness(info)).toBe('not-ready');
    expect(describePrinterState(info)).toBe('stopped, out of paper, offline');

    const outcome = await backend.print(job('application/vnd.escpos'), receipt, printer.url, {});
    expect(outcome).toMatchObject({ ok: false, code: 'printer_not_ready', printed: 'no' });
    expect(outcome.ok === false && outcome.message).toContain('out of paper; nothing was sent');
    expect(printer.printedBytes).toBe(0);
  });

  it('cover open: stopped with cover-open-error', async () => {
    const printer = await run(new EscposSimulator());
    printer.set({ coverOpen: true });
    const info = await stateOf(backendFor('escpos'), printer.url);
    expect(info.state).toBe('stopped');
    expect(info.reasons).toEqual(['cover-open-error', 'offline-report']);
    expect(printerReadiness(info)).toBe('not-ready');
  });

  it('offline with no cause given: offline', async () => {
    const printer = await run(new EscposSimulator());
    printer.set({ offline: true });
    const info = await stateOf(backendFor('escpos'), printer.url);
    expect(info.state).toBe('offline');
    expect(info.reasons).toEqual(['offline-report']);
    expect(printerReadiness(info)).toBe('not-ready');
  });

  it('paper near end is a warning: idle, media-low-report, and the job prints', async () => {
    const printer = await run(new EscposSimulator());
    printer.set({ nearEnd: true });
    const backend = backendFor('escpos');
    const info = await stateOf(backend, printer.url);
    expect(info.state).toBe('idle');
    expect(info.reasons).toEqual(['media-low-report']);
    expect(printerReadiness(info)).toBe('ready');
    const outcome = await backend.print(job('application/vnd.escpos'), receipt, printer.url, {});
    expect(outcome).toEqual({ ok: true, printer: printer.url, spoolerJobId: null });
    expect(printer.printedBuffer().equals(receipt)).toBe(true);
  });

  it('confirms a job by its process ID, once every byte before it is printed', async () => {
    const printer = await run(new EscposSimulator());
    const backend = backendFor('escpos');
    const outcome = await backend.print(job('application/vnd.escpos'), receipt, printer.url, {});
    expect(outcome.ok).toBe(true);
    // The job's bytes came out as sent: no status request or process ID among them.
    expect(printer.printedBuffer().equals(receipt)).toBe(true);
    // After the job: read again, idle.
    expect((await stateOf(backend, printer.url)).state).toBe('idle');
  });

  it('paper running out mid-job: not confirmed, outcome unknown, the state says why', async () => {
    const printer = await run(new EscposSimulator());
    printer.paperRunsOutAfter = 300;
    const backend = backendFor('escpos', 400);
    const outcome = await backend.print(job('application/vnd.escpos'), receipt, printer.url, {});
    expect(outcome).toMatchObject({ ok: false, code: 'print_unconfirmed', printed: 'unknown' });
    // Automatic Status Back told the agent during the job.
    expect(outcome.ok === false && outcome.message).toContain('it last said: out of paper');
    expect(printer.printedBytes).toBe(300);
    expect((await stateOf(backend, printer.url)).reasons).toContain('media-empty-error');
  });

  it('a printer that vanishes mid-job: outcome unknown, then offline', async () => {
    const printer = await run(new EscposSimulator());
    printer.vanishAfterBytes = 12 + 3 + 500;
    const backend = backendFor('escpos');
    const outcome = await backend.print(job('application/vnd.escpos'), receipt, printer.url, {});
    expect(outcome).toMatchObject({ ok: false, code: 'print_unconfirmed', printed: 'unknown' });
    expect(outcome.ok === false && outcome.message).toContain('went away');
    expect(printer.printedBytes).toBe(500);
  });

  it('an unreachable printer: offline with the reason in words; a job is known not printed', async () => {
    const printer = `socket://127.0.0.1:${await closedPort()}`;
    const backend = backendFor('escpos');
    const info = await stateOf(backend, printer);
    expect(info.state).toBe('offline');
    expect(info.reasons).toEqual(['offline-report']);
    expect(info.message).toMatch(/^cannot connect to 127\.0\.0\.1:\d+: connection refused/);
    expect(info.capabilities).toBeUndefined();
    const outcome = await backend.print(job('application/vnd.escpos'), receipt, printer, {});
    expect(outcome).toMatchObject({ ok: false, code: 'printer_unreachable', printed: 'no' });
  });

  it('a printer that does not speak the profile language: unknown, no capability', async () => {
    const printer = await run(new EscposSimulator());
    const info = await stateOf(backendFor('zpl'), printer.url);
    expect(info.state).toBe('unknown');
    expect(info.message).toContain('did not answer the ZPL status request');
    expect(info.capabilities).toBeUndefined();
  });

  it('reads that overlap share one connection; a job beside a read prints (one connection at a time)', async () => {
    const printer = await run(new EscposSimulator());
    printer.oneConnectionAtATime = true;
    const backend = backendFor('escpos');
    const [first, second] = await Promise.all([
      stateOf(backend, printer.url),
      stateOf(backend, printer.url),
    ]);
    expect([first.state, second.state]).toEqual(['idle', 'idle']);
    expect(printer.connectionsAccepted).toBe(1);
    const [read, outcome] = await Promise.all([
      stateOf(backend, printer.url),
      backend.print(job('application/vnd.escpos'), receipt, printer.url, {}),
    ]);
    expect(read.state).toBe('idle');
    expect(outcome.ok).toBe(true);
    expect(printer.connectionsAccepted).toBe(3);
  });

  it('while a job holds the printer, a read says printing without a second connection', async () => {
    const printer = await run(new EscposSimulator());
    printer.set({ paperEnd: false });
    printer.paperRunsOutAfter = 100;
    const backend = backendFor('escpos', 1500);
    const printing = backend.print(job('application/vnd.escpos'), receipt, printer.url, {});
    await expect.poll(() => printer.printedBytes).toBe(100);
    const accepted = printer.connectionsAccepted;
    expect((await stateOf(backend, printer.url)).state).toBe('printing');
    expect(printer.connectionsAccepted).toBe(accepted);
    // Paper loaded again within the wait: the rest prints and the job is confirmed.
    printer.set({ paperEnd: false });
    expect((await printing).ok).toBe(true);
    expect(printer.printedBuffer().equals(receipt)).toBe(true);
  });
});

describe('the ESC/POS simulator, against the command reference', () => {
  it('answers GS ( H only after the bytes before it are printed; DLE EOT at once', async () => {
    const printer = await run(new EscposSimulator());
    printer.set({ paperEnd: true });
    const socket = connect(printer.port, '127.0.0.1');
    const answers: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => answers.push(chunk));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(Buffer.from('hello\n'));
    socket.write(Buffer.from([0x1d, 0x28, 0x48, 6, 0, 0x30, 0x30, 0x31, 0x32, 0x33, 0x34]));
    socket.write(Buffer.from([0x10, 0x04, 4]));
    await expect.poll(() => Buffer.concat(answers).length).toBe(1);
    // Roll paper sensor: end (bits 5-6) over the fixed 0x12.
    expect(Buffer.concat(answers)).toEqual(Buffer.from([0x72]));
    expect(printer.printedBytes).toBe(0);
    printer.set({ paperEnd: false });
    await expect.poll(() => Buffer.concat(answers).length).toBe(8);
    expect(Buffer.concat(answers).subarray(1)).toEqual(
      Buffer.from([0x37, 0x22, 0x31, 0x32, 0x33, 0x34, 0x00]),
    );
    expect(printer.printedBuffer().toString()).toBe('hello\n');
    socket.destroy();
  });
});

describe('printers reached directly: StarPRNT (ASB)', () => {
  const star = 'application/vnd.star.starprnt' as const;

  it('lists a ready printer as idle, answering in starprnt', async () => {
    const printer = await run(new StarprntSimulator());
    const info = await stateOf(backendFor('starprnt'), printer.url);
    expect(info).toMatchObject({
      state: 'idle',
      reasons: [],
      capabilities: { languages: ['starprnt'] },
    });
  });

  it.each([
    ['paper end', { paperEnd: true }, 'stopped', ['media-empty-error', 'offline-report']],
    ['cover open', { coverOpen: true }, 'stopped', ['cover-open-error', 'offline-report']],
    ['offline', { offline: true }, 'offline', ['offline-report']],
    ['near end', { nearEnd: true }, 'idle', ['media-low-report']],
  ] as const)('%s', async (_name, condition, state, reasons) => {
    const printer = await run(new StarprntSimulator());
    printer.set(condition);
    const info = await stateOf(backendFor('starprnt'), printer.url);
    expect(info.state).toBe(state);
    expect(info.reasons).toEqual(reasons);
  });

  it('reads the latest block when the printer sends ASB at connect (memory switch)', async () => {
    const printer = await run(new StarprntSimulator());
    printer.asbAtConnect = true;
    printer.set({ coverOpen: true });
    expect((await stateOf(backendFor('starprnt'), printer.url)).reasons).toContain(
      'cover-open-error',
    );
  });

  it('prints and confirms by the status after the job; refuses with paper out', async () => {
    const printer = await run(new StarprntSimulator());
    const backend = backendFor('starprnt');
    const document = Buffer.from('\x1b@Star receipt\n\x1bd\x02', 'latin1');
    expect(await backend.print(job(star), document, printer.url, {})).toMatchObject({ ok: true });
    // The ASB setting is a command, not paper.
    expect(printer.printedBuffer().equals(document)).toBe(true);
    printer.set({ paperEnd: true });
    expect(await backend.print(job(star), document, printer.url, {})).toMatchObject({
      ok: false,
      code: 'printer_not_ready',
      printed: 'no',
    });
  });

  it('paper out mid-job: not confirmed, unknown', async () => {
    const printer = await run(new StarprntSimulator());
    printer.paperRunsOutAfter = 50;
    const outcome = await backendFor('starprnt', 600).print(job(star), receipt, printer.url, {});
    expect(outcome).toMatchObject({ ok: false, code: 'print_unconfirmed', printed: 'unknown' });
    expect(outcome.ok === false && outcome.message).toContain('out of paper');
  });

  it('vanishing mid-job: unknown', async () => {
    const printer = await run(new StarprntSimulator());
    printer.vanishAfterBytes = 3 + 4 + 200;
    const outcome = await backendFor('starprnt').print(job(star), receipt, printer.url, {});
    expect(outcome).toMatchObject({ ok: false, code: 'print_unconfirmed', printed: 'unknown' });
  });
});

describe('printers reached directly: ZPL (~HS)', () => {
  const zpl = 'application/vnd.zebra.zpl' as const;
  const label = Buffer.from('^XA^FO50,50^A0N,40,40^FDShelf 12^FS^XZ', 'latin1');

  it('lists a ready printer as idle, answering in zpl', async () => {
    const printer = await run(new ZplSimulator());
    const info = await stateOf(backendFor('zpl'), printer.url);
    expect(info).toMatchObject({
      state: 'idle',
      reasons: [],
      capabilities: { languages: ['zpl'] },
    });
  });

  it('paper out, head up, paused, ribbon out, head too hot: stopped with their keywords', async () => {
    const printer = await run(new ZplSimulator());
    const backend = backendFor('zpl');
    printer.set({ paperEnd: true });
    expect((await stateOf(backend, printer.url)).reasons).toEqual(['media-empty-error']);
    printer.set({ paperEnd: false, coverOpen: true });
    expect((await stateOf(backend, printer.url)).reasons).toEqual(['cover-open-error']);
    printer.set({ coverOpen: false });
    printer.paused = true;
    expect(await stateOf(backend, printer.url)).toMatchObject({
      state: 'stopped',
      reasons: ['paused'],
    });
    printer.paused = false;
    printer.thermalTransfer = true;
    printer.ribbonOut = true;
    expect((await stateOf(backend, printer.url)).reasons).toEqual(['marker-supply-empty-error']);
    printer.ribbonOut = false;
    printer.set({ error: true });
    expect(await stateOf(backend, printer.url)).toMatchObject({
      state: 'stopped',
      reasons: ['other-error'],
      message: 'print head too hot',
    });
  });

  it('confirms once no format waits and no label remains', async () => {
    const printer = await run(new ZplSimulator());
    printer.labelMs = 150;
    const outcome = await backendFor('zpl').print(
      job(zpl),
      Buffer.concat([label, label]),
      printer.url,
      {},
    );
    expect(outcome).toMatchObject({ ok: true });
    // Both labels were out before the confirmation.
    expect(printer.printed).toHaveLength(2);
  });

  it('a label that cannot print (paused as it arrives) is not confirmed', async () => {
    const printer = await run(new ZplSimulator());
    printer.labelMs = 50;
    const backend = backendFor('zpl', 500);
    printer.onFormat = () => {
      printer.paused = true;
    };
    const outcome = await backend.print(job(zpl), label, printer.url, {});
    expect(outcome).toMatchObject({ ok: false, code: 'print_unconfirmed', printed: 'unknown' });
    expect(outcome.ok === false && outcome.message).toContain('paused');
  });

  it('paused as the label arrives and resumed within the wait: confirmed once it printed', async () => {
    const printer = await run(new ZplSimulator());
    printer.onFormat = () => {
      printer.paused = true;
      setTimeout(() => {
        printer.paused = false;
      }, 300);
    };
    const outcome = await backendFor('zpl', 3000).print(job(zpl), label, printer.url, {});
    expect(outcome).toMatchObject({ ok: true });
    expect(printer.printed).toHaveLength(1);
  });

  it('vanishing mid-job: unknown', async () => {
    const printer = await run(new ZplSimulator());
    printer.vanishAfterBytes = 3 + 10;
    const outcome = await backendFor('zpl').print(job(zpl), label, printer.url, {});
    expect(outcome).toMatchObject({ ok: false, code: 'print_unconfirmed', printed: 'unknown' });
  });
});

describe('direct printers in the agent', () => {
  it('the runtime back-end sends socket:// printers to the direct back-end, with the route language', async () => {
    const printer = await run(new ZplSimulator());
    const backend = createPrinterBackend('linux', { languageOf: () => 'zpl' });
    // The system's printers are listed too (CUPS's queues, when it runs here).
    const listed = await backend.listPrinters([printer.url]);
    expect(listed.find((info) => info.name === printer.url)).toMatchObject({ state: 'idle' });
  });

  it('without a profile, a job takes its language from its content type', async () => {
    const printer = await run(new EscposSimulator());
    const backend = new DirectBackend({ confirmTimeoutMs: 2000 });
    // Before any job, nothing says its language.
    expect((await stateOf(backend, printer.url)).state).toBe('unknown');
    expect(
      await backend.print(job('application/vnd.escpos'), receipt, printer.url, {}),
    ).toMatchObject({ ok: true });
    // Then its reads use the language the job was answered in.
    expect(await stateOf(backend, printer.url)).toMatchObject({
      state: 'idle',
      capabilities: { languages: ['escpos'] },
    });
    // A plain-text job with no profile: no language to read the state in.
    expect(await backend.print(job('text/plain'), receipt, printer.url, {})).toMatchObject({
      ok: false,
      code: 'invalid_printer',
      printed: 'no',
    });
  });
});
