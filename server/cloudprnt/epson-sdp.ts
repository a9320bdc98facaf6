/**
 * Epson Server Direct Print as ShopDesk will serve it, pure and not wired to a route yet: the
 * printer's form POSTs (`ConnectionType=GetRequest` asks for work, `SetResponse` carries the
 * printing result, `SetStatus` the status notification), the print request answered with
 * ePOS-Print XML (`<PrintRequestInfo Version="2.00">`, one `<ePOSPrint>` per job, its
 * `<printjobid>`), and the printing result read back per job. The manual pages it follows are
 * listed in docs/cloudprnt.md ("Epson Server Direct Print").
 */

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
      const status = form.get('Status');
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
