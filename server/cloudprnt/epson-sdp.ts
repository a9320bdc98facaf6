/**
 * Epson Server Direct Print as ShopDesk serves it, pure: the printer's form POSTs
 * (`ConnectionType=GetRequest` asks for work, `SetResponse` carries the printing result,
 * `SetStatus` the status notification), the print request answered with ePOS-Print XML
 * (`<PrintRequestInfo Version="2.00">`, one `<ePOSPrint>` per job, its `<printjobid>`), the
 * printing result read back per job, and the status notification's ASB bits read as the
 * printer's state. The manual pages it follows are listed in docs/cloudprnt.md ("Epson Server
 * Direct Print").
 */

import type { PrinterInfo, PrinterState } from '../../shared/printer-info.ts';
import { eposPrintNamespace, escapeXml } from '../templates/index.ts';

/** The three requests a TM intelligent printer sends, as URL-encoded form data. */
export type SdpRequest =
  | { kind: 'GetRequest'; id: string }
  | { kind: 'SetResponse'; id: string; responseFile: string }
  | { kind: 'SetStatus'; id: string; status: string };

/** Reads a Server Direct Print form body; undefined when it is none of the three. */
export function parseSdpForm(body: string): SdpRequest | undefined {
  const form = new URLSearchParams(body);
  const id = form.get('ID') ?? '';
  switch (form.get('ConnectionType')) {
    case 'GetRequest':
      return { kind: 'GetRequest', id };
    case 'SetResponse': {
      const responseFile = form.get('ResponseFile');
      return responseFile === null ? undefined : { kind: 'SetResponse', id, responseFile };
    }
    case 'SetStatus': {
      // The manual's example sends `Status=`; its table of parameters names it `ResponseFile`.
      const status = form.get('Status') ?? form.get('ResponseFile');
      return status === null ? undefined : { kind: 'SetStatus', id, status };
    }
    default:
      return undefined;
  }
}

/**
 * A plain text job as ePOS-Print XML: its text (line feeds kept, as `&#10;`), then a feed
 * cut. What a template renders to (images, barcodes) comes with the template renderer.
 */
export function eposPrintOfText(text: string): string {
  const lines = escapeXml(text).replace(/\r?\n/g, '&#10;');
  return `<epos-print xmlns="${eposPrintNamespace}"><text>${lines}</text><cut type="feed"/></epos-print>`;
}

export interface SdpJob {
  /** ShopDesk's name of the claim (`<job id>.<attempt>`), sent back in the printing result. */
  printJobId: string;
  /** The job as an `<epos-print>` document. */
  eposPrint: string;
}

/**
 * The answer to a `GetRequest` with jobs: `<PrintRequestInfo Version="2.00">`, one
 * `<ePOSPrint>` per job with the printer's own device (`local_printer`), a timeout and the
 * job's `printjobid`, its document in `<PrintData>`.
 */
export function printRequestInfo(jobs: readonly SdpJob[], timeoutMs = 10_000): string {
  const prints = jobs.map(
    (job) =>
      `<ePOSPrint><Parameter><devid>local_printer</devid><timeout>${timeoutMs}</timeout><printjobid>${escapeXml(job.printJobId)}</printjobid></Parameter><PrintData>${job.eposPrint}</PrintData></ePOSPrint>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>\n<PrintRequestInfo Version="2.00">${prints.join('')}</PrintRequestInfo>`;
}

/** One job's result in a `SetResponse`: its id, whether it printed, the printer's code. */
export interface SdpJobResult {
  printJobId: string | null;
  success: boolean;
  code: string;
  status: number;
}

const attribute = (tag: string, name: string): string | undefined =>
  new RegExp(`\\s${name}\\s*=\\s*"([^"]*)"`).exec(tag)?.[1];

/**
 * The jobs' results in a `ResponseFile` (`<PrintResponseInfo>`): for each `<ePOSPrint>`, its
 * `printjobid` and its `<response success code status>`; a bare `<response>` (version 1.00,
 * no job ids) reads as one result without an id.
 */
export function readPrintResults(responseFile: string): SdpJobResult[] {
  const results: SdpJobResult[] = [];
  const blocks = responseFile.match(/<ePOSPrint>[\s\S]*?<\/ePOSPrint>/g) ?? [responseFile];
  for (const block of blocks) {
    const tag = /<response\b[^>]*>/.exec(block)?.[0];
    if (!tag) continue;
    const success = attribute(tag, 'success');
    results.push({
      printJobId: /<printjobid>([^<]*)<\/printjobid>/.exec(block)?.[1] ?? null,
      success: success === 'true' || success === '1',
      code: attribute(tag, 'code') ?? '',
      status: Number(attribute(tag, 'status') ?? 0) || 0,
    });
  }
  return results;
}

/**
 * What a job's result means for the queue: printed; given back, waiting with a reason, when
 * the printer could not print it (no paper, cover open: ePOS-Print answers such an error
 * before printing); or failed with the code (a timeout or a port error may have printed part:
 * never handed out again, as a lapsed lease).
 */
export type SdpOutcome =
  | { kind: 'printed' }
  | { kind: 'wait'; code: 'printer_out_of_paper' | 'printer_cover_open'; message: string }
  | { kind: 'failed'; code: string; message: string };

export function outcomeOf(result: SdpJobResult): SdpOutcome {
  if (result.success) return { kind: 'printed' };
  const said = `the printer reported ${result.code || 'a failure'}`;
  if (result.code === 'EPTR_REC_EMPTY')
    return { kind: 'wait', code: 'printer_out_of_paper', message: said };
  if (result.code === 'EPTR_COVER_OPEN')
    return { kind: 'wait', code: 'printer_cover_open', message: said };
  return { kind: 'failed', code: `epson_${result.code || 'failed'}`.slice(0, 64), message: said };
}

/**
 * The ASB bits of ePOS-Print's printer status (the `status` of `<response>`, the `asbstatus`
 * of a status notification) that say whether the printer can print, as the ePOS-Print XML
 * User's Manual lists them. Others (drawer, paper feed button, buzzer, print success) change
 * nothing here.
 */
export const asbBits = {
  noResponse: 0x00000001,
  offline: 0x00000008,
  coverOpen: 0x00000020,
  waitingOnline: 0x00000100,
  mechanicalError: 0x00000400,
  autocutterError: 0x00000800,
  unrecoverableError: 0x00002000,
  autoRecoverableError: 0x00004000,
  receiptNearEnd: 0x00020000,
  receiptEnd: 0x00080000,
  spoolerStopped: 0x80000000,
} as const;

/**
 * The printer's own ASB bits in a status notification's `Status`: the manual's
 * `<statusmonitor Version="1.00">` lists a `<printerstatus devicename asbstatus="0x…">` per
 * device; the one read is `local_printer` (the device ShopDesk's jobs print on), or the only
 * one listed. A bare hex value (`0x00080008`) reads as that value. Undefined when there is
 * none to read.
 */
export function readStatusNotification(status: string): number | undefined {
  const bare = /^\s*(?:0x)?([0-9a-f]{1,8})\s*$/i.exec(status)?.[1];
  if (bare !== undefined) return Number.parseInt(bare, 16);
  const tags = status.match(/<printerstatus\b[^>]*>/g) ?? [];
  const own =
    tags.find((tag) => attribute(tag, 'devicename') === 'local_printer') ??
    (tags.length === 1 ? tags[0] : undefined);
  const value = own === undefined ? undefined : attribute(own, 'asbstatus');
  const hex = /^\s*0x([0-9a-f]{1,8})\s*$/i.exec(value ?? '')?.[1];
  return hex === undefined ? undefined : Number.parseInt(hex, 16);
}

/** A printer's state in ShopDesk's words: a printer info's state, reasons and message. */
export type SdpPrinterState = Pick<PrinterInfo, 'state' | 'reasons' | 'message'>;

const errorBits: ReadonlyArray<readonly [number, string]> = [
  [asbBits.mechanicalError, 'mechanical error'],
  [asbBits.autocutterError, 'autocutter error'],
  [asbBits.unrecoverableError, 'unrecoverable error'],
  [asbBits.autoRecoverableError, 'recoverable error'],
  [asbBits.spoolerStopped, 'spooler stopped'],
];

/**
 * The printer's state from its ASB bits, in the IPP keywords the rest of ShopDesk reads
 * (shared/wait-reasons.ts turns them into wait reasons): paper end stops it
 * (`media-empty-error`), an open cover (`cover-open-error`), any error bit (`other-error`);
 * paper near end is a warning (`media-low-warning`: it prints); offline or not answering,
 * with nothing above to say why, makes it `offline`. All clear: idle. The message names what
 * the bits said and only that, so a notification that says the same again is the same state.
 */
export function printerStateOfAsb(bits: number): SdpPrinterState {
  const on = (bit: number) => (bits & bit) !== 0;
  const reasons = new Set<string>();
  const said: string[] = [];
  if (on(asbBits.receiptEnd)) {
    reasons.add('media-empty-error');
    said.push('no paper');
  } else if (on(asbBits.receiptNearEnd)) {
    reasons.add('media-low-warning');
    said.push('paper low');
  }
  if (on(asbBits.coverOpen)) {
    reasons.add('cover-open-error');
    said.push('cover open');
  }
  for (const [bit, words] of errorBits) {
    if (!on(bit)) continue;
    reasons.add('other-error');
    said.push(words);
  }
  const stopped = [...reasons].some((reason) => reason.endsWith('-error'));
  const away = on(asbBits.noResponse) || on(asbBits.offline) || on(asbBits.waitingOnline);
  let state: PrinterState = 'idle';
  if (stopped) state = 'stopped';
  else if (away) {
    state = 'offline';
    reasons.add('offline-report');
    said.push(on(asbBits.noResponse) ? 'not answering' : 'offline');
  }
  return {
    state,
    reasons: [...reasons].sort(),
    message: said.length > 0 ? `its status notification says ${said.join(', ')}` : null,
  };
}
