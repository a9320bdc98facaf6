import { z } from 'zod';
import type { PrinterInfo } from './printer-info.ts';
import type { PrinterProfile } from './printer-profiles.ts';
import { profileMisfit } from './profile-fit.ts';
import { type WaitReasonCode, waitReasonCodes } from './wait-reason-words.ts';

export { type WaitReasonCode, waitReasonAdvice, waitReasonCodes } from './wait-reason-words.ts';

/**
 * Why a queued job waits, as a code and in words (docs/printing.md, "Why a job waits"). The
 * server derives it when a job is read, from what it knows of the agents serving the job's
 * route (online, paused, their printers' last reported state); the agent gives a held job
 * back with the same codes when its printer cannot print. Pure, free of Node: the console
 * and the tray say it the same way.
 */
export const waitReasonCodeSchema = z.enum(waitReasonCodes);

export const waitReasonSchema = z
  .object({
    code: waitReasonCodeSchema,
    message: z.string(),
  })
  .describe(
    'Why a queued job is not printing now, derived when the job is read from the agents serving its route and their printers; null when nothing stops it (or the job is not queued).',
  );
export type WaitReason = z.infer<typeof waitReasonSchema>;

const severity = /-(report|warning|error)$/;

/** Keywords that stop printing (an `-error`, or no suffix), without their suffix. */
function stoppingKeywords(printer: PrinterInfo): string[] {
  return printer.reasons
    .filter((reason) => !reason.endsWith('-report') && !reason.endsWith('-warning'))
    .map((reason) => reason.replace(severity, ''));
}

/** Words a spooler or a person stopping a queue uses for paper out (`cupsdisable -r "Paper out"`). */
const paperOutWords =
  /\b(paper (out|empty)|out of paper|no paper|media (empty|out|needed)|load paper)\b/i;

/**
 * Whether a printer can print now: its queue is idle or printing and accepts jobs (the rule
 * of docs/printing.md, "Printer states"). `unknown` counts as able: nothing says otherwise.
 */
export function printerCanPrint(printer: PrinterInfo): boolean {
  if (printer.accepting_jobs === false) return false;
  return printer.state !== 'stopped' && printer.state !== 'offline';
}

/**
 * Why a printer that cannot print now does not, as a wait reason; null when it can. The
 * cause comes before the state: a queue stopped because the paper ran out says
 * `printer_out_of_paper`, by its IPP reasons (`media-empty`) or by its message. `undefined`:
 * the system does not list the printer the route names.
 */
export function printerWaitReason(
  printer: PrinterInfo | undefined,
  name?: string,
): WaitReason | null {
  if (printer === undefined) {
    return {
      code: 'printer_misconfigured',
      message: `printer ${name ?? ''} is not on the agent's computer`.replace('  ', ' '),
    };
  }
  if (printerCanPrint(printer)) return null;
  const keywords = stoppingKeywords(printer);
  const said = printer.message ? `: ${printer.message}` : '';
  const has = (...words: string[]) => words.some((word) => keywords.includes(word));
  const because = (code: WaitReasonCode, words: string): WaitReason => ({
    code,
    message: `printer ${printer.name} ${words}${said}`,
  });
  if (has('media-empty', 'media-needed') || paperOutWords.test(printer.message ?? '')) {
    return because('printer_out_of_paper', 'is out of paper');
  }
  if (has('media-jam')) return because('printer_paper_jam', 'has a paper jam');
  if (has('cover-open', 'door-open', 'interlock-open')) {
    return because('printer_cover_open', 'has its cover open');
  }
  if (printer.state === 'offline' || has('offline', 'timed-out', 'connecting-to-device')) {
    return because('printer_offline', 'is offline');
  }
  if (printer.accepting_jobs === false) return because('printer_stopped', 'refuses new jobs');
  return because('printer_stopped', 'is stopped');
}

/** A route as the printer rules need it: its printer and its backups, in order. */
export interface RoutePrinters {
  printer: string;
  backup_printers?: readonly string[] | undefined;
  /** The route's profile: a printer that cannot print its language cannot print the route. */
  profile?: Pick<PrinterProfile, 'language'> | null | undefined;
}

/**
 * The printers a route prints on, in the order it tries them: its printer, then its backup
 * printers (docs/agent.md, "Backup printers"). Every check over a route's printers takes this.
 */
export function routePrinterNames(route: RoutePrinters): string[] {
  return [route.printer, ...(route.backup_printers ?? [])];
}

/**
 * Why a route cannot print now, over its printers: null when any of them can (or is not
 * known not to); else the first printer's reason. `printers` is what the agent reported;
 * `listed` false when it reported none (it could not read them: nothing is known).
 */
export function routeWaitReason(
  route: RoutePrinters,
  printers: readonly PrinterInfo[],
): WaitReason | null {
  const known = printers.length > 0;
  let first: WaitReason | null = null;
  for (const name of routePrinterNames(route)) {
    const printer = printers.find((candidate) => candidate.name === name);
    if (printer === undefined && !known) return null;
    const misfit = printer && profileMisfit(route.profile, printer);
    const reason: WaitReason | null = misfit
      ? { code: 'printer_misconfigured', message: misfit }
      : printerWaitReason(printer, name);
    if (reason === null) return null;
    first ??= reason;
  }
  return first;
}
