import { z } from 'zod';
import type { PrinterInfo, PrinterState } from '../../shared/printer-info.ts';
import type { PrinterProfile } from '../../shared/printer-profiles.ts';

/**
 * Star CloudPRNT (HTTP method) as ShopDesk serves it, pure: the poll's JSON, what its status
 * code and ASB bytes say of the printer, the media types a job can be served in, the client
 * actions that teach the server the printer's capabilities, the job token and the
 * confirmation's code. The pages of Star's protocol reference each rule follows are listed in
 * docs/cloudprnt.md.
 */

/**
 * The poll (`POST`), as the JSON request page gives it: every field but `statusCode` is
 * optional and may be null; fields ShopDesk does not use (barcode reader, keyboard, display)
 * are let through unread.
 */
export const pollRequestSchema = z.looseObject({
  statusCode: z.string().min(1).max(200),
  status: z.string().max(200).nullish(),
  printerMAC: z.string().max(64).nullish(),
  uniqueID: z.string().max(64).nullish(),
  jobToken: z.string().max(128).nullish(),
  printingInProgress: z.boolean().nullish(),
  clientAction: z
    .array(z.looseObject({ request: z.string().max(64), result: z.unknown().optional() }))
    .max(32)
    .nullish(),
});
export type PollRequest = z.infer<typeof pollRequestSchema>;

/** A client action the server asks for in its poll answer (`clientAction`). */
export interface ClientActionRequest {
  request: string;
  options: string;
}

/** What the server answers a poll with (the JSON response page); only the fields it uses. */
export interface PollResponse {
  jobReady: boolean;
  mediaTypes?: string[];
  jobToken?: string;
  clientAction?: ClientActionRequest[];
}

/**
 * What ShopDesk learns of a printer from its client actions' results: its type (the model,
 * `Star mC-Print3`), the media types it accepts (`Encodings`, in its order) and how often it
 * polls (`GetPollInterval`, seconds).
 */
export interface CloudPrntCapabilities {
  clientType?: string;
  encodings?: string[];
  pollIntervalSeconds?: number;
}

/** The client actions whose answers are the capabilities, asked until each has an answer. */
export function clientActionsToAsk(known: CloudPrntCapabilities): ClientActionRequest[] {
  const asks: ClientActionRequest[] = [];
  if (known.clientType === undefined) asks.push({ request: 'ClientType', options: '' });
  if (known.encodings === undefined) asks.push({ request: 'Encodings', options: '' });
  if (known.pollIntervalSeconds === undefined) {
    asks.push({ request: 'GetPollInterval', options: '' });
  }
  return asks;
}

/**
 * The capabilities a poll's client action results add to `known`; `known` itself when they
 * change nothing (none, or the same answers again), so that a caller can tell by identity that
 * there is nothing to write. `Encodings` is a semicolon-separated list of media types;
 * `GetPollInterval` a number of seconds.
 */
export function capabilitiesFrom(
  known: CloudPrntCapabilities,
  results: PollRequest['clientAction'],
): CloudPrntCapabilities {
  if (!results || results.length === 0) return known;
  const next: CloudPrntCapabilities = { ...known };
  for (const { request, result } of results) {
    if (result === undefined || result === null) continue;
    const text = String(result).trim();
    if (request === 'ClientType' && text !== '') next.clientType = text.slice(0, 255);
    if (request === 'Encodings') {
      next.encodings = text
        .split(';')
        .map((type) => type.trim().toLowerCase())
        .filter((type) => type !== '')
        .slice(0, 32);
    }
    if (request === 'GetPollInterval') {
      const seconds = Number(text);
      if (Number.isFinite(seconds) && seconds > 0 && seconds <= 3600) {
        next.pollIntervalSeconds = seconds;
      }
    }
  }
  return JSON.stringify(next) === JSON.stringify(known) ? known : next;
}

/**
 * The printer status code at the head of `statusCode` (`"200 OK"`, `"410 Out of paper"`):
 * three or four digits, then, after a space, words meant for a log. NaN when there are none.
 */
export function statusNumberOf(statusCode: string): number {
  const match = /^\s*(\d{3,4})(?!\d)/.exec(statusCode);
  return match ? Number(match[1]) : Number.NaN;
}

/** What the ASB bytes say, where they say it (Star's automatic status, bytes 3 and 6). */
export interface AsbFlags {
  coverOpen: boolean;
  offline: boolean;
  paperEmpty: boolean;
  paperNearEnd: boolean;
}

/**
 * Reads the ASB hex string of the poll's `status` (`"23 86 00 00 00 00 00 00 00"`, spaces
 * optional). Byte 3: bit 5 cover open, bit 3 offline; byte 6: bit 3 paper end, bit 2 paper
 * near end (inner sensor). Undefined when the string is absent, not hex, or too short.
 */
export function readAsb(status: string | null | undefined): AsbFlags | undefined {
  if (!status) return undefined;
  const hex = status.replace(/\s+/g, '');
  if (!/^([0-9a-fA-F]{2})+$/.test(hex) || hex.length < 12) return undefined;
  const byte = (n: number) => Number.parseInt(hex.slice((n - 1) * 2, n * 2), 16);
  const third = byte(3);
  const sixth = byte(6);
  return {
    coverOpen: (third & 0x20) !== 0,
    offline: (third & 0x08) !== 0,
    paperEmpty: (sixth & 0x08) !== 0,
    paperNearEnd: (sixth & 0x04) !== 0,
  };
}

/** The printer's state in ShopDesk's words: a printer info's state, reasons and message. */
export type CloudPrntState = Pick<PrinterInfo, 'state' | 'reasons' | 'message'>;

/**
 * The printer's state from its poll, in the IPP keywords the rest of ShopDesk reads
 * (shared/wait-reasons.ts turns them into wait reasons): 2xx online (211 paper low is a
 * warning, it still prints), 410 out of paper, 411 paper jam, 42x cover open, any other 4xx
 * stopped. The ASB bits add what the code leaves out (a printer reporting `200` with its
 * cover-open bit set is stopped). 5xx codes are about a job, not the printer: online.
 */
export function printerStateOf(poll: PollRequest): CloudPrntState {
  const code = statusNumberOf(poll.statusCode);
  const asb = readAsb(poll.status);
  const reasons = new Set<string>();
  const family = Math.floor(code / 100);
  if (code === 410) reasons.add('media-empty-error');
  if (code === 411) reasons.add('media-jam-error');
  if (Math.floor(code / 10) === 42) reasons.add('cover-open-error');
  if (code === 210 || code === 211) reasons.add('media-low-warning');
  if (asb?.coverOpen) reasons.add('cover-open-error');
  if (asb?.paperEmpty) reasons.add('media-empty-error');
  if (asb?.paperNearEnd && !asb.paperEmpty) reasons.add('media-low-warning');
  if (asb?.offline && reasons.size === 0) reasons.add('offline-report');
  const stopping = [...reasons].some((reason) => reason.endsWith('-error'));
  const stopped = stopping || family === 4 || asb?.offline === true;
  let state: PrinterState = 'idle';
  if (stopped) state = 'stopped';
  else if (Number.isNaN(code)) state = 'unknown';
  else if (poll.printingInProgress === true) state = 'printing';
  if (stopped && reasons.size === 0) reasons.add('other-error');
  const words = poll.statusCode.replace(/^\s*\d{3,4}\s*/, '').trim();
  return { state, reasons: [...reasons].sort(), message: words === '' ? null : words };
}

/**
 * The media types a job stored as `contentType` can be served in, best first, limited to
 * those the printer said it accepts (`Encodings`) when it said. StarPRNT bytes are served as
 * they are (their own cut and drawer commands inside); plain text as plain text. Empty: the
 * printer cannot take the job (PDF, ZPL, ESC/POS).
 */
export function mediaTypesFor(contentType: string, encodings?: readonly string[]): string[] {
  const servable: Record<string, readonly string[]> = {
    'application/vnd.star.starprnt': ['application/vnd.star.starprnt'],
    'text/plain': ['text/plain'],
  };
  const types = servable[contentType] ?? [];
  return encodings === undefined ? [...types] : types.filter((type) => encodings.includes(type));
}

/**
 * A job token names one claim of one job: the job's id and its attempt, so that a GET or a
 * DELETE that arrives after the job was given back and claimed again is told apart.
 */
export const jobTokenOf = (jobId: number, attempt: number): string => `${jobId}.${attempt}`;

export function parseJobToken(
  token: string | null | undefined,
): { jobId: number; attempt: number } | undefined {
  const match = /^([1-9]\d{0,15})\.(\d{1,6})$/.exec(token ?? '');
  if (!match) return undefined;
  return { jobId: Number(match[1]), attempt: Number(match[2]) };
}

/**
 * CloudPRNT's `jobToken`, which the poll answer carries with `jobReady` and the printer sends
 * back as the `token` of its GET and its DELETE (firmware that knows it; older firmware sends
 * none): the number of the printer's claim it names. The poll names the printer's next claim,
 * which the GET bringing the token back makes; from then on the token names that claim.
 */
export const claimTokenOf = (claim: number): string => String(claim);

/** The claim number a `token` names; 0 (no claim) for one ShopDesk never gives. */
export function claimNumberOf(token: string): number {
  return /^[1-9]\d{0,8}$/.test(token) ? Number(token) : 0;
}

/** The response headers that steer a printer's cutter and cash drawer (Star's names). */
export type PrinterControls = Partial<Record<'X-Star-Cut' | 'X-Star-CashDrawer', string>>;

/**
 * What a job served as `mediaType` asks of the printer's cutter and cash drawer, from its
 * route's profile, in the GET answer's headers. The printer reads them for plain text (and
 * images); StarPRNT bytes carry their own commands (templates render the profile's cut and
 * drawer into them), so they get none. Plain text: a full cut after feeding the paper past
 * the cutter (`cut`, true by default), or none for a profile with `cut: false` (the printer
 * would otherwise cut, as it does after plain text); the drawer opened at the job's end for
 * `drawer: true`, as the profile opens it after the receipt.
 */
export function printerControlsFor(
  mediaType: string,
  profile: Pick<PrinterProfile, 'cut' | 'drawer'> | null,
): PrinterControls {
  if (mediaType !== 'text/plain') return {};
  const controls: PrinterControls = {
    'X-Star-Cut': profile?.cut === false ? 'none; feed=true' : 'full; feed=true',
  };
  if (profile?.drawer === true) controls['X-Star-CashDrawer'] = 'end';
  return controls;
}

/**
 * The DELETE's `code`: `OK` (older clients), or a printer status code. 2xx: printed. 520 (the
 * download timed out: a network cut during the GET) printed nothing. Any other (5xx: the
 * printer could not take or decode the job) fails it with the code and words.
 */
export type Confirmation =
  | { printed: true }
  | {
      printed: false;
      code: string;
      message: string;
      /** 520: the download timed out, nothing was printed: the job may go back to the queue. */
      unprinted: boolean;
    };

export function confirmationOf(code: string | null | undefined): Confirmation {
  const text = (code ?? '').trim();
  if (/^ok$/i.test(text)) return { printed: true };
  const number = statusNumberOf(text);
  if (Math.floor(number / 100) === 2) return { printed: true };
  const digits = Number.isNaN(number) ? 'unknown' : String(number);
  const words = text.replace(/^\s*\d{3,4}\s*/, '').trim();
  return {
    printed: false,
    unprinted: number === 520,
    code: `cloudprnt_${digits}`,
    message: `the printer reported ${Number.isNaN(number) ? `"${text.slice(0, 100)}"` : digits}${words ? ` (${words.slice(0, 200)})` : ''} instead of printing the job`,
  };
}
