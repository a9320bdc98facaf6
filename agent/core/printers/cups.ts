import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { PrinterCapabilities, SheetSize } from '../../../shared/printer-capabilities.ts';
import {
  type PrinterInfo,
  type PrintOptions,
  printOptionsSchema,
  rawContentTypes,
} from '../../../shared/printing.ts';
import {
  failure,
  type PrintableJob,
  type PrinterBackend,
  type PrintOutcome,
  plainTitle,
} from './backend.ts';
import { capabilitiesFromIpp, capabilityAttributes } from './cups-capabilities.ts';
import { type IppAttributes, IppClient, jobStates, printerStates } from './ipp.ts';
import { cleanMessage, cleanReasons, type PrinterStatus, unknownStatus } from './printer-status.ts';
import { makeTempCopyDir, tempCopyPrefix, writeTempCopy } from './temp-copies.ts';

/**
 * CUPS back-end (Linux, macOS): `lp` run with an argument array, never through a shell,
 * then the job followed over IPP until CUPS says it completed, failed or the printer
 * stopped. We do not use the `unix-print` package: it builds one shell command string out
 * of the printer name, title and options, so a title like `$(touch pwned)` would run.
 */

/** Runs a program with arguments, no shell. Injected so tests can fake it. */
export type RunFile = (
  file: string,
  args: readonly string[],
  options: { timeout: number },
) => Promise<{ stdout: string; stderr: string }>;

const execFileAsync = promisify(execFile);

export const runFile: RunFile = async (file, args, options) => {
  const { stdout, stderr } = await execFileAsync(file, args, {
    timeout: options.timeout,
    // CUPS translates its messages; the parsers below read the C locale's.
    env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
    maxBuffer: 4 * 1024 * 1024,
    windowsHide: true,
  });
  return { stdout: String(stdout), stderr: String(stderr) };
};

/**
 * CUPS printer names: 1–127 printable characters without space, tab, "/", "\\", "#", quotes
 * or "," (cupsd rejects them). A leading "-" would read as an option, so it is refused too.
 */
const cupsPrinterName = /^(?!-)[^\s/\\#'",?\p{Cc}]{1,127}$/u;

export function isValidCupsPrinterName(name: string): boolean {
  return cupsPrinterName.test(name);
}

const sidesByDuplex = {
  none: 'one-sided',
  'long-edge': 'two-sided-long-edge',
  'short-edge': 'two-sided-short-edge',
} as const;
// RFC 8011 §5.2.10 orientation-requested: 3 portrait, 4 landscape.
const orientationRequested = { portrait: '3', landscape: '4' } as const;
/** CUPS media names (PPD names, or PWG 5101.1 where a PPD name would be ambiguous: B5). */
const mediaByPaper: Record<SheetSize, string> = {
  a3: 'A3',
  a4: 'A4',
  a5: 'A5',
  a6: 'A6',
  b5: 'iso_b5_176x250mm',
  letter: 'Letter',
  legal: 'Legal',
  executive: 'Executive',
};

/** The `lp` arguments for a job, file path last. Options are re-validated: they came over the network. */
export function lpArguments(
  job: PrintableJob,
  printer: string,
  options: PrintOptions,
  file: string,
): string[] {
  const checked = printOptionsSchema.parse(options);
  const args = ['-d', printer, '-n', String(job.copies), '-t', plainTitle(job)];
  if (rawContentTypes.includes(job.content_type)) {
    args.push('-o', 'raw');
  } else {
    // A roll is what is loaded (the server checked its width): no media to ask for.
    const media = checked.paper ? mediaByPaper[checked.paper as SheetSize] : undefined;
    if (media) args.push('-o', `media=${media}`);
    if (checked.duplex) args.push('-o', `sides=${sidesByDuplex[checked.duplex]}`);
    if (checked.color) args.push('-o', `print-color-mode=${checked.color}`);
    if (checked.orientation) {
      args.push('-o', `orientation-requested=${orientationRequested[checked.orientation]}`);
    }
    if (checked.fit) args.push('-o', 'fit-to-page');
    if (checked.pages) args.push('-o', `page-ranges=${checked.pages}`);
  }
  args.push(file);
  return args;
}

/** `request id is PDF-12 (1 file(s))` → `{ name: 'PDF-12', number: 12 }`. */
export function parseLpRequestId(stdout: string): { name: string; number: number } | null {
  const match = /request id is (\S+)-(\d+)/.exec(stdout);
  if (!match) return null;
  return { name: `${match[1]}-${match[2]}`, number: Number(match[2]) };
}

/** `lpstat -e` lists destinations, `lpstat -d` names the default one. */
export function parsePrinters(
  destinations: string,
  defaultLine: string,
): Array<Pick<PrinterInfo, 'name' | 'is_default'>> {
  const defaultName = /system default destination: (\S+)/.exec(defaultLine)?.[1] ?? null;
  return destinations
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((name) => ({ name, is_default: name === defaultName }));
}

/**
 * A printer's state from its Get-Printer-Attributes answer (RFC 8011 §5.4.11 printer-state,
 * §5.4.12 printer-state-reasons, §5.4.23 printer-is-accepting-jobs). A stopped queue is
 * `stopped` even when the device is offline too: it will not print when the device comes
 * back. Otherwise an `offline` reason (CUPS's backends say `offline-report`) makes it
 * `offline`.
 */
export function printerStatusFromIpp(attributes: IppAttributes): PrinterStatus {
  const ippState = printerStates[attributes['printer-state']?.[0] as keyof typeof printerStates];
  const reasons = cleanReasons(attributes['printer-state-reasons']);
  const accepting = attributes['printer-is-accepting-jobs']?.[0];
  const offline = reasons.some((reason) => /^offline(-report|-warning|-error)?$/.test(reason));
  let state: PrinterStatus['state'] = 'unknown';
  if (ippState === 'stopped') state = 'stopped';
  else if (offline) state = 'offline';
  else if (ippState === 'processing') state = 'printing';
  else if (ippState === 'idle') state = 'idle';
  return {
    state,
    reasons,
    accepting_jobs: typeof accepting === 'boolean' ? accepting : null,
    message: cleanMessage(attributes['printer-state-message']?.[0]),
  };
}

/** How many printers are asked about at once; each is one short request to the local cupsd. */
const statusRequestsAtOnce = 4;

/** Consecutive failed IPP reads after which a job's state counts as unknown. */
const maxUnreadablePolls = 8;

export interface CupsBackendOptions {
  /** How long a job may take from `lp` to completed before it is cancelled and failed. */
  completionTimeoutMs?: number;
  pollIntervalMs?: number;
  /** The scheduler's HTTP address for IPP. */
  cupsUrl?: string;
  runFile?: RunFile;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** How its temporary copies are named (temp-copies.ts); the runtime names them per agent. */
  tempPrefix?: string;
  /** How long the names `lpstat` gave are kept (the states are read at every call). */
  listTtlMs?: number;
}

export class CupsBackend implements PrinterBackend {
  private readonly completionTimeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly ipp: IppClient;
  private readonly run: RunFile;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly tempPrefix: string;
  private readonly listTtlMs: number;
  /** The destinations `lpstat` named last, and when. */
  private listed:
    | { at: number; printers: Array<Pick<PrinterInfo, 'name' | 'is_default'>> }
    | undefined;
  private readonly capabilities = new Map<
    string,
    { at: number; capabilities: PrinterCapabilities | undefined }
  >();

  constructor(options: CupsBackendOptions = {}) {
    this.completionTimeoutMs = options.completionTimeoutMs ?? 5 * 60_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.ipp = new IppClient(options.cupsUrl);
    this.run = options.runFile ?? runFile;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
    this.tempPrefix = options.tempPrefix ?? tempCopyPrefix;
    this.listTtlMs = options.listTtlMs ?? 60_000;
  }

  /**
   * `lpstat` names the destinations; IPP gives each one's state, at every call. The names are
   * kept for a minute (`lpstat` is two processes; an idle agent started them every 5 s, ~1 %
   * of a core), and read again sooner when a routed printer is not among them, when a
   * printer's state cannot be read (removed, or never a queue), or when `fresh` is asked.
   */
  async listPrinters(routed: readonly string[] = [], fresh = false): Promise<PrinterInfo[]> {
    const printers = await this.destinations(routed, fresh);
    const states: PrinterStatus[] = new Array(printers.length);
    let next = 0;
    const worker = async () => {
      while (next < printers.length) {
        const index = next++;
        states[index] = await this.printerStatus(printers[index]!.name);
      }
    };
    await Promise.all(Array.from({ length: statusRequestsAtOnce }, worker));
    if (states.some((state) => state.state === 'unknown')) this.listed = undefined;
    const capabilities = await Promise.all(
      printers.map((printer, index) =>
        states[index]!.state === 'unknown' ? undefined : this.capabilitiesOf(printer.name),
      ),
    );
    return printers.map((printer, index) => ({
      ...printer,
      ...states[index]!,
      ...(capabilities[index] && { capabilities: capabilities[index] }),
    }));
  }

  /**
   * A queue's capabilities (cups-capabilities.ts), read over IPP once a minute at most (they
   * change when a driver or a tray does, not between jobs); undefined when CUPS cannot say.
   */
  private async capabilitiesOf(printer: string): Promise<PrinterCapabilities | undefined> {
    const kept = this.capabilities.get(printer);
    if (kept && this.now() - kept.at < this.listTtlMs) return kept.capabilities;
    let capabilities: PrinterCapabilities | undefined;
    try {
      const answer = await this.ipp.getPrinter(printer.split('/')[0]!, capabilityAttributes);
      const read = answer.statusCode < 0x0400 ? capabilitiesFromIpp(answer.attributes) : {};
      // Nothing learnt is no capabilities: absent means unchecked.
      if (Object.keys(read).length > 0) capabilities = read;
    } catch {
      capabilities = undefined;
    }
    this.capabilities.set(printer, { at: this.now(), capabilities });
    return capabilities;
  }

  private async destinations(
    routed: readonly string[],
    fresh: boolean,
  ): Promise<Array<Pick<PrinterInfo, 'name' | 'is_default'>>> {
    const listed = this.listed;
    if (
      !fresh &&
      listed &&
      this.now() - listed.at < this.listTtlMs &&
      routed.every((name) => listed.printers.some((printer) => printer.name === name))
    ) {
      return listed.printers;
    }
    const [destinations, defaults] = await Promise.all([
      this.run('lpstat', ['-e'], { timeout: 10_000 }).catch(() => ({ stdout: '', stderr: '' })),
      this.run('lpstat', ['-d'], { timeout: 10_000 }).catch(() => ({ stdout: '', stderr: '' })),
    ]);
    const printers = parsePrinters(destinations.stdout, defaults.stdout);
    this.listed = { at: this.now(), printers };
    return printers;
  }

  /**
   * `lpstat -r` says whether the scheduler runs (it exits 0 either way). Without it `lpstat -e`
   * lists nothing and every route's printer looks missing; this says why.
   */
  async spoolerProblem(): Promise<string | null> {
    let stdout: string;
    try {
      ({ stdout } = await this.run('lpstat', ['-r'], { timeout: 10_000 }));
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'CUPS is not installed (no lpstat on the PATH)'
        : `CUPS cannot be asked whether it runs: ${commandError(error)}`;
    }
    return /scheduler is not running/.test(stdout)
      ? 'CUPS is not running (lpstat -r: scheduler is not running)'
      : null;
  }

  /**
   * One printer's state over IPP. A destination CUPS has no queue for (a network printer
   * `lpstat -e` found but nobody printed to yet), or a scheduler that does not answer, is
   * `unknown`.
   */
  async printerStatus(printer: string): Promise<PrinterStatus> {
    // `name/instance` is an lpoptions instance of the queue `name`: same state.
    const queue = printer.split('/')[0]!;
    try {
      const answer = await this.ipp.getPrinter(queue);
      if (answer.statusCode >= 0x0400) return { ...unknownStatus, reasons: [] };
      return printerStatusFromIpp(answer.attributes);
    } catch {
      return { ...unknownStatus, reasons: [] };
    }
  }

  async print(
    job: PrintableJob,
    document: Uint8Array,
    printer: string,
    options: PrintOptions,
  ): Promise<PrintOutcome> {
    if (!isValidCupsPrinterName(printer)) {
      return failure('invalid_printer', `"${printer}" is not a valid CUPS printer name`);
    }
    const dir = await makeTempCopyDir(this.tempPrefix);
    let requestId: { name: string; number: number } | null;
    try {
      const file = await writeTempCopy(dir, `job-${job.id}`, document);
      let args: string[];
      try {
        args = lpArguments(job, printer, options, file);
      } catch (error) {
        return failure('invalid_options', `the job's print options are not valid: ${error}`);
      }
      let stdout: string;
      try {
        ({ stdout } = await this.run('lp', args, { timeout: 60_000 }));
      } catch (error) {
        return failure('spooler_rejected', `lp refused the job: ${commandError(error)}`);
      }
      requestId = parseLpRequestId(stdout);
      if (requestId === null) {
        return failure('spooler_rejected', `lp gave no job id: ${stdout.trim()}`);
      }
    } finally {
      // lp has sent the document to the scheduler, which spools its own copy: ours can go
      // now rather than after a follow-up that may last minutes.
      await rm(dir, { recursive: true, force: true });
    }
    return this.followJob(printer, requestId);
  }

  /** Polls CUPS until the job ends; a job that cannot end (printer stopped) is cancelled. */
  private async followJob(
    printer: string,
    requestId: { name: string; number: number },
  ): Promise<PrintOutcome> {
    const deadline = this.now() + this.completionTimeoutMs;
    const id = requestId.name;
    // The job may well print: the message says so, so that nobody retries blindly.
    const unknownState = (why: string) =>
      failure(
        'printer_error',
        `handed to CUPS as ${id} but its state cannot be read (${why}); check the printer before retrying`,
        id,
      );
    let unreadable = 0;
    for (;;) {
      let job: IppAttributes;
      try {
        const answer = await this.ipp.getJob(requestId.number);
        // RFC 8011 §4.1.6: 0x0400 and above are errors (0x0406 not found: history purged).
        if (answer.statusCode >= 0x0400) {
          return unknownState(`IPP status 0x${answer.statusCode.toString(16).padStart(4, '0')}`);
        }
        job = answer.attributes;
        unreadable = 0;
      } catch (error) {
        // A busy scheduler may drop one request; only a scheduler that stays away is an answer.
        if (++unreadable >= maxUnreadablePolls || this.now() >= deadline) {
          return unknownState((error as Error).message);
        }
        await this.sleep(this.pollIntervalMs);
        continue;
      }
      const state = jobStates[job['job-state']?.[0] as keyof typeof jobStates];
      const reason = describe(job['job-printer-state-message'], job['job-state-reasons']);
      if (state === 'completed') return { ok: true, printer, spoolerJobId: id };
      if (state === 'aborted') return failure('job_aborted', `CUPS aborted ${id}: ${reason}`, id);
      if (state === 'canceled') {
        return failure('job_canceled', `${id} was cancelled in CUPS: ${reason}`, id);
      }
      if (state === 'processing-stopped') {
        await this.cancel(id);
        return failure('job_stopped', `CUPS stopped ${id}: ${reason}`, id);
      }
      const stopped = await this.printerStopReason(printer);
      if (stopped !== null) {
        // Cancelled so that it cannot come out later, after we reported it failed.
        await this.cancel(id);
        return failure('printer_stopped', `printer ${printer} is disabled: ${stopped}`, id);
      }
      if (this.now() >= deadline) {
        await this.cancel(id);
        return failure(
          'print_timeout',
          `${id} did not complete within ${Math.round(this.completionTimeoutMs / 1000)} s (${reason}); cancelled`,
          id,
        );
      }
      await this.sleep(this.pollIntervalMs);
    }
  }

  /** The reason a printer is stopped (disabled), or null while it can print. */
  private async printerStopReason(printer: string): Promise<string | null> {
    try {
      const { attributes } = await this.ipp.getPrinter(printer);
      if (attributes['printer-state']?.[0] !== 5) return null;
      return describe(attributes['printer-state-message'], attributes['printer-state-reasons']);
    } catch {
      return null;
    }
  }

  private async cancel(id: string): Promise<void> {
    await this.run('cancel', [id], { timeout: 10_000 }).catch(() => {});
  }
}

function describe(message: unknown[] | undefined, reasons: unknown[] | undefined): string {
  const text = typeof message?.[0] === 'string' ? message[0].trim() : '';
  if (text !== '') return text;
  const keywords = (reasons ?? []).filter((reason) => reason !== 'none').join(', ');
  return keywords === '' ? 'no reason given' : keywords;
}

function commandError(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  if (typeof stderr === 'string' && stderr.trim() !== '') return stderr.trim();
  return (error as Error).message;
}
