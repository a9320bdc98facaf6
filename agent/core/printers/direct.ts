import type { PrinterLanguage } from '../../../shared/printer-profiles.ts';
import type { ContentType, PrinterInfo, PrintOptions } from '../../../shared/printing.ts';
import { failure, type PrintableJob, type PrinterBackend, type PrintOutcome } from './backend.ts';
import {
  type DirectAddress,
  describeAddress,
  isDirectPrinter,
  parseDirectPrinter,
} from './direct-address.ts';
import {
  canPrint,
  conditionStatus,
  describeCondition,
  fineCondition,
  type PrinterCondition,
} from './direct-condition.ts';
import {
  LinkClosed,
  LinkTimeout,
  LinkUnreachable,
  openLink,
  type PrinterLink,
} from './direct-link.ts';
import { escposDialect } from './escpos-status.ts';
import { cleanMessage, type PrinterStatus } from './printer-status.ts';
import { starprntDialect } from './starprnt-status.ts';
import {
  isStatusLanguage,
  NotConfirmed,
  type StatusDialect,
  type StatusLanguage,
} from './status-dialect.ts';
import { zplDialect } from './zpl-status.ts';

export interface DirectBackendOptions {
  /**
   * The language of the route profile that names this printer (the runtime's routes, kept
   * up to date by the route sync), read at every use.
   */
  languageOf?: (printer: string) => PrinterLanguage | undefined;
  /** How long a connection may take (a printer switched off: no answer at all). */
  connectTimeoutMs?: number;
  /** How long the printer may take to answer a status request. */
  statusTimeoutMs?: number;
  /** How long after a job's last byte the printer may take to say it printed it. */
  confirmTimeoutMs?: number;
}

const languageByContentType: Partial<Record<ContentType, StatusLanguage>> = {
  'application/vnd.escpos': 'escpos',
  'application/vnd.star.starprnt': 'starprnt',
  'application/vnd.zebra.zpl': 'zpl',
};

/** What was last read of one printer, and whether a job holds its link now. */
interface Known {
  status: PrinterStatus;
  language: StatusLanguage | null;
  busy: boolean;
}

/**
 * Printers reached directly (`socket://HOST[:PORT]`, `usb:///dev/usb/lpN`;
 * direct-address.ts): the agent sends a job's bytes itself, no spooler in between, and reads
 * the printer's own state in the route profile's language (ESC/POS, StarPRNT, ZPL) before
 * each job, after it, and at each read of the printers while idle (every few seconds, the
 * runtime's printer watch). A job is confirmed only when the printer says it printed it.
 *
 * One link per printer at a time: most raw ports take one connection, so while a job holds
 * it, a read of the printers answers what the job last saw, as `printing`.
 */
export class DirectBackend implements PrinterBackend {
  private readonly languageOf: (printer: string) => PrinterLanguage | undefined;
  private readonly connectTimeoutMs: number;
  private readonly statusTimeoutMs: number;
  private readonly confirmTimeoutMs: number;
  private readonly known = new Map<string, Known>();
  /** A read in progress per printer: a second read waits for it rather than connecting too. */
  private readonly reading = new Map<string, Promise<PrinterStatus>>();
  /** The language each printer last answered a job in. */
  private readonly learned = new Map<string, StatusLanguage>();
  private processId = Math.floor(Math.random() * 10_000);
  private readonly dialects: Record<StatusLanguage, StatusDialect>;

  constructor(options: DirectBackendOptions = {}) {
    this.languageOf = options.languageOf ?? (() => undefined);
    this.connectTimeoutMs = options.connectTimeoutMs ?? 3000;
    this.statusTimeoutMs = options.statusTimeoutMs ?? 3000;
    this.confirmTimeoutMs = options.confirmTimeoutMs ?? 60_000;
    this.dialects = {
      escpos: escposDialect(() => {
        this.processId = (this.processId + 1) % 10_000;
        return String(this.processId).padStart(4, '0');
      }),
      starprnt: starprntDialect,
      zpl: zplDialect,
    };
  }

  /** The direct printers among `routed`, each with the state it gave now. */
  async listPrinters(routed: readonly string[] = []): Promise<PrinterInfo[]> {
    const printers = [...new Set(routed)].filter(
      (printer) => isDirectPrinter(printer) && printer.length <= 255,
    );
    return Promise.all(
      printers.map(async (name) => {
        const read = await this.readOnce(name);
        const language = this.known.get(name)?.language ?? null;
        return {
          name,
          is_default: false,
          ...read,
          ...(language !== null && { capabilities: { languages: [language] } }),
        };
      }),
    );
  }

  /**
   * One read at a time per printer (the printer watch and a window asking for a fresh list
   * may overlap): a raw port that takes one connection at a time keeps the second waiting, or
   * refuses it, which would read as unreachable.
   */
  private readOnce(name: string): Promise<PrinterStatus> {
    const running = this.reading.get(name);
    if (running) return running;
    const read = this.readPrinter(name).finally(() => this.reading.delete(name));
    this.reading.set(name, read);
    return read;
  }

  private async readPrinter(name: string): Promise<PrinterStatus> {
    const known = this.known.get(name);
    if (known?.busy) return { ...known.status, state: 'printing' };
    const address = parseDirectPrinter(name);
    if (typeof address === 'string') return stopped(address);
    // No profile: the language a job on it was last answered in (its content type's).
    const language =
      this.statusLanguage(name) ??
      (this.languageOf(name) === undefined ? (this.learned.get(name) ?? null) : null);
    let link: PrinterLink;
    try {
      link = await openLink(address, this.connectTimeoutMs);
    } catch (error) {
      return this.remember(name, unreachable(error), null);
    }
    if (language === null) {
      await link.close();
      return this.remember(name, noLanguage(name, this.languageOf(name)), null);
    }
    try {
      const condition = await this.dialects[language].readCondition(link, this.statusTimeoutMs);
      return this.remember(name, conditionStatus(condition), language);
    } catch (error) {
      return this.remember(name, notAnswering(address, language, error), null);
    } finally {
      await link.close();
    }
  }

  private remember(name: string, status: PrinterStatus, language: StatusLanguage | null) {
    // A job that started meanwhile keeps its own reading.
    if (this.known.get(name)?.busy) return status;
    this.known.set(name, { status, language, busy: false });
    return status;
  }

  /** The route profile's language; null when it is none a printer answers status in. */
  private statusLanguage(printer: string, contentType?: ContentType): StatusLanguage | null {
    const language = this.languageOf(printer);
    if (isStatusLanguage(language)) return language;
    if (language !== undefined) return null;
    return (contentType && languageByContentType[contentType]) ?? null;
  }

  async print(
    job: PrintableJob,
    document: Uint8Array,
    printer: string,
    _options: PrintOptions,
  ): Promise<PrintOutcome> {
    const address = parseDirectPrinter(printer);
    if (typeof address === 'string') return failure('invalid_printer', address, null, 'no');
    const language = this.statusLanguage(printer, job.content_type);
    if (language === null) {
      return failure(
        'invalid_printer',
        noLanguage(printer, this.languageOf(printer)).message ?? '',
        null,
        'no',
      );
    }
    const previous = this.known.get(printer);
    if (previous?.busy) {
      return failure('printer_not_ready', `printer ${printer} is printing another job`, null, 'no');
    }
    const entry: Known = {
      status: previous?.status ?? conditionStatus(fineCondition),
      language: previous?.language ?? null,
      busy: true,
    };
    this.known.set(printer, entry);
    try {
      // A read that had the printer's connection first ends before the job connects.
      await this.reading.get(printer)?.catch(() => undefined);
      return await this.printOn(address, language, job, document, printer, entry);
    } finally {
      entry.busy = false;
    }
  }

  private async printOn(
    address: DirectAddress,
    language: StatusLanguage,
    job: PrintableJob,
    document: Uint8Array,
    printer: string,
    entry: Known,
  ): Promise<PrintOutcome> {
    const dialect = this.dialects[language];
    const place = describeAddress(address);
    let link: PrinterLink;
    try {
      link = await openLink(address, this.connectTimeoutMs);
    } catch (error) {
      entry.status = unreachable(error);
      entry.language = null;
      return failure(
        'printer_unreachable',
        `${(error as Error).message}; nothing was sent`,
        null,
        'no',
      );
    }
    try {
      // Before the job: a printer that says it cannot print gets no byte of it.
      let before: PrinterCondition;
      try {
        before = await dialect.readCondition(link, this.statusTimeoutMs);
      } catch (error) {
        entry.status = notAnswering(address, language, error);
        entry.language = null;
        return failure(
          'printer_not_ready',
          `${entry.status.message}; nothing was sent`,
          null,
          'no',
        );
      }
      entry.status = conditionStatus(before);
      entry.language = language;
      this.learned.set(printer, language);
      if (!canPrint(before)) {
        return failure(
          'printer_not_ready',
          `printer ${place} cannot print now: ${describeCondition(before)}; nothing was sent`,
          null,
          'no',
        );
      }
      const copies = Math.max(1, job.copies);
      try {
        if (dialect.beforeJob.length > 0) await link.write(dialect.beforeJob);
        for (let copy = 0; copy < copies; copy++) await link.write(document);
        const after = await dialect.confirm(link, this.confirmTimeoutMs);
        entry.status = conditionStatus(after);
        if (dialect.afterJob.length > 0) await link.write(dialect.afterJob).catch(() => {});
        return { ok: true, printer, spoolerJobId: null };
      } catch (error) {
        return this.unconfirmed(error, link, place, entry);
      }
    } finally {
      await link.close();
    }
  }

  /** Bytes went out (or may have) and the printer never said it printed them. */
  private unconfirmed(
    error: unknown,
    link: PrinterLink,
    place: string,
    entry: Known,
  ): PrintOutcome {
    const sent = `${link.written} bytes were sent`;
    let why: string;
    if (error instanceof NotConfirmed) {
      if (error.condition) entry.status = conditionStatus(error.condition);
      const state = error.condition ? `; it last said: ${describeCondition(error.condition)}` : '';
      why = `${error.message}${state}`;
    } else if (error instanceof LinkClosed) {
      entry.status = offline(`${place} went away during a job: ${error.message}`);
      why = `the printer went away before it confirmed the job (${error.message})`;
    } else {
      why = (error as Error).message;
    }
    return failure(
      'print_unconfirmed',
      `${why}; ${sent}: look at the printer before printing it again, it may have printed all or part of it`,
      null,
      'unknown',
    );
  }
}

function stopped(message: string): PrinterStatus {
  return {
    state: 'stopped',
    reasons: ['other-error'],
    accepting_jobs: null,
    message: cleanMessage(message),
  };
}

function offline(message: string): PrinterStatus {
  return {
    state: 'offline',
    reasons: ['offline-report'],
    accepting_jobs: null,
    message: cleanMessage(message),
  };
}

function unreachable(error: unknown): PrinterStatus {
  return offline(error instanceof LinkUnreachable ? error.message : String(error));
}

const languageNames: Record<StatusLanguage, string> = {
  escpos: 'ESC/POS',
  starprnt: 'StarPRNT',
  zpl: 'ZPL',
};

/** Connected, but it said nothing in the route's language: its state is not known. */
function notAnswering(
  address: DirectAddress,
  language: StatusLanguage,
  error: unknown,
): PrinterStatus {
  const place = describeAddress(address);
  const message =
    error instanceof LinkTimeout
      ? `${place} did not answer the ${languageNames[language]} status request: is the route's printer profile its language?`
      : `${place}: ${(error as Error).message}`;
  return { state: 'unknown', reasons: [], accepting_jobs: null, message: cleanMessage(message) };
}

function noLanguage(printer: string, language: PrinterLanguage | undefined): PrinterStatus {
  const given = language === undefined ? 'no printer profile' : `the profile ${language}`;
  return {
    state: 'unknown',
    reasons: [],
    accepting_jobs: null,
    message: cleanMessage(
      `${printer} is reachable, but its route has ${given}: a printer reached directly needs escpos, starprnt or zpl, the language its state is read in`,
    ),
  };
}
