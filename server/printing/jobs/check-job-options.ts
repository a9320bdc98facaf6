import {
  type PrinterCapabilities,
  printerCapabilitiesSchema,
  rollWidthOf,
} from '../../../shared/printer-capabilities.ts';
import { type ContentType, type PrintOptions, rawContentTypes } from '../../../shared/printing.ts';
import { routePrinterNames } from '../../../shared/wait-reasons.ts';
import { InvalidFields } from '../../domain-errors.ts';
import { type Presence, presentAt } from '../agents/presence.ts';
import { backupPrintersOf } from '../agents/records.ts';
import { isOnline, type Server } from '../agents/route-wait-reasons.ts';

/** The options a printer's capabilities answer for, in the order a refusal names them. */
const checkedOptions = ['paper', 'duplex', 'color'] as const;
type CheckedOption = (typeof checkedOptions)[number];

export interface JobAsked {
  route: string;
  /** The bytes' type; null for a template job (rendered at its claim, for the route's profile). */
  content_type: ContentType | null;
  copies: number;
  options: PrintOptions;
}

/** Whether a printer of these capabilities can honour one asked value; absent: unchecked. */
function honours(caps: PrinterCapabilities, option: CheckedOption, value: string): boolean {
  if (option === 'paper') {
    if (caps.paper === undefined) return true;
    const roll = rollWidthOf(value);
    return caps.paper.includes(value) || (roll !== null && caps.roll_width_mm === roll);
  }
  const supported = caps[option] as readonly string[] | undefined;
  return supported === undefined || supported.includes(value);
}

/**
 * Bytes a printer may not take: some printers say which they take (`content_types`: a Star
 * CloudPRNT printer takes StarPRNT and plain text). Plain text and StarPRNT every such printer
 * takes, so a job of those reads nothing for it.
 */
const mayBeRefused = (contentType: ContentType | null): contentType is ContentType =>
  contentType !== null &&
  contentType !== 'text/plain' &&
  contentType !== 'application/vnd.star.starprnt';

/** Whether a printer of these capabilities takes bytes of this type; absent: unchecked. */
const takes = (caps: PrinterCapabilities, contentType: ContentType | null) =>
  contentType === null ||
  caps.content_types === undefined ||
  caps.content_types.includes(contentType);

/**
 * Refuses (422) a job that no printer serving its route can print as asked: the printers of
 * the route's online agents (paused ones included: they print once resumed), each as its
 * agent last reported its capabilities. A printer whose capabilities are unknown honours
 * everything, and a route with no agent online is not checked at all (the job is queued
 * with `route_online: false`, as before). Raw content (ZPL, ESC/POS) ignores the options,
 * so only its copies are checked; bytes of a type no printer of the route takes (its
 * `content_types`) are refused on `content_type`, naming what the route prints. A job that
 * asks for no option and one copy, in plain text or StarPRNT, is not looked at; the others
 * are checked against the route's rows the create read once (`readRouteServers`), which also
 * answer its `route_online`.
 */
export function refuseUnprintableOptions(
  servers: Server[],
  job: JobAsked,
  presence: Presence,
): void {
  const errors = unprintableOptions(servers, job, presence);
  if (errors !== null) throw new InvalidFields(errors);
}

/** What `refuseUnprintableOptions` would refuse, by field; null when a printer fits. */
export function unprintableOptions(
  servers: Server[],
  job: JobAsked,
  { now }: Presence,
): Record<string, string[]> | null {
  const raw = job.content_type !== null && rawContentTypes.includes(job.content_type);
  const asked = checkedOptions.filter((option) => job.options[option] !== undefined && !raw);
  // Most jobs (a receipt: no options, one copy, text or StarPRNT) ask nothing a printer could
  // refuse. ESC/POS, PDF and ZPL are looked at: a printer may not take them.
  if (asked.length === 0 && job.copies <= 1 && !mayBeRefused(job.content_type)) return null;
  // The enabled rows of online agents (online as the agent record says, agents/records.ts:
  // a clean stop signs it off at once); paused ones count, they print once resumed.
  const at = presentAt(now);
  const rows = servers.filter((row) => row.enabled && isOnline(row, at));
  if (rows.length === 0) return null;
  const fits = (caps: PrinterCapabilities | null) =>
    caps === null ||
    ((caps.copies === undefined || job.copies <= caps.copies) &&
      takes(caps, job.content_type) &&
      asked.every((option) => honours(caps, option, String(job.options[option]))));
  // The first printer that fits ends it: only a refusal reads every agent's printers.
  const printers: Array<PrinterCapabilities | null> = [];
  for (const row of rows) {
    const names = routePrinterNames({
      printer: row.printer,
      backup_printers: backupPrintersOf(row.backupPrinters),
    });
    for (const name of names) {
      const caps = capabilitiesOf(row.printers, name);
      if (fits(caps)) return null;
      printers.push(caps);
    }
  }

  const known = printers.filter((caps): caps is PrinterCapabilities => caps !== null);
  const errors: Record<string, string[]> = {};
  if (!known.some((caps) => takes(caps, job.content_type))) {
    const taken = [...new Set(known.flatMap((caps) => caps.content_types ?? []))];
    errors['content_type'] = [
      `No printer serving route ${job.route} takes ${job.content_type}: the route prints ${taken.join(', ') || 'nothing listed'}.`,
    ];
  }
  for (const option of asked) {
    const value = String(job.options[option]);
    if (known.some((caps) => honours(caps, option, value))) continue;
    const supported = [...new Set(known.flatMap((caps) => supportedValues(caps, option)))];
    errors[`options.${option}`] = [
      `No printer serving route ${job.route} can print ${option} ${value}; they support ${option}: ${supported.join(', ') || 'nothing listed'}.`,
    ];
  }
  const most = Math.max(...known.map((caps) => caps.copies ?? Number.POSITIVE_INFINITY));
  if (job.copies > most) {
    errors['copies'] = [
      `No printer serving route ${job.route} prints ${job.copies} copies of a job; they print at most ${most}.`,
    ];
  }
  if (Object.keys(errors).length === 0) {
    errors['options'] = [
      `No single printer serving route ${job.route} supports these options together (${asked.map((option) => `${option}: ${job.options[option]}`).join(', ')}).`,
    ];
  }
  return errors;
}

function supportedValues(caps: PrinterCapabilities, option: CheckedOption): string[] {
  const values = [...((caps[option] as readonly string[] | undefined) ?? [])];
  if (option === 'paper' && caps.roll_width_mm !== undefined) {
    const roll = `roll-${caps.roll_width_mm}mm`;
    if (!values.includes(roll)) values.push(roll);
  }
  return values;
}

/**
 * The capabilities the agent reported for the route's printer, or null when it reported
 * none (an older agent, a back-end that cannot tell, a printer it does not list).
 */
function capabilitiesOf(printersJson: string, printer: string): PrinterCapabilities | null {
  let printers: unknown;
  try {
    printers = JSON.parse(printersJson);
  } catch {
    return null;
  }
  if (!Array.isArray(printers)) return null;
  const entry = printers.find(
    (candidate: { name?: unknown }) => candidate && candidate.name === printer,
  ) as { capabilities?: unknown } | undefined;
  const parsed = printerCapabilitiesSchema.safeParse(entry?.capabilities);
  return parsed.success && entry?.capabilities !== undefined ? parsed.data : null;
}
