import type { PrinterInfo } from '../../shared/printer-info.ts';
import type { ClaimedJob } from '../../shared/printing.ts';
import {
  claimForMember,
  confirmMemberJob,
  failMemberJob,
  jobQueuedOn,
  memberHolds,
  memberLastSeen,
  recordMemberSeen,
  releaseMemberJob,
} from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { ignoreNotHeld } from './answer-poll.ts';
import {
  eposPrintOfText,
  outcomeOf,
  printRequestInfo,
  readPrintResults,
  type SdpOutcome,
} from './epson-sdp.ts';
import type { CallingPrinter, CloudPrntDeps } from './member.ts';
import { clearJobToken, saveJobToken } from './printer-rows.ts';
import { jobTokenOf, parseJobToken } from './protocol.ts';

/**
 * Epson Server Direct Print served (docs/cloudprnt.md): a print request (`GetRequest`) is the
 * printer's heartbeat and its fetch at once, answered with the next job of its route as
 * ePOS-Print XML, claimed for it with a lease, or with an empty body; the printing result
 * (`SetResponse`) confirms, gives back or fails that claim, once.
 */

/** Jobs the printer cannot take, failed one after the other, before the answer gives up. */
const maxRefused = 10;

/**
 * An ePOS-Print XML job as it goes inside `<PrintData>`: one `<epos-print>` element, its XML
 * declaration dropped. A document that could close `<PrintData>` or open another job (it is
 * checked as text, not parsed: no declaration, comment, CDATA or processing instruction, no
 * Server Direct Print element) is refused, so no job's bytes can add a job to the answer.
 */
export function eposPrintOfDocument(xml: string): string | undefined {
  const body = xml.replace(/^\uFEFF?\s*<\?xml[^<>]*\?>/, '').trim();
  if (!/^<epos-print[\s>][\s\S]*<\/epos-print>$/.test(body)) return undefined;
  if (/<[!?]|<\/?(?:PrintData|ePOSPrint|PrintRequestInfo|Parameter|printjobid)\b/i.test(body)) {
    return undefined;
  }
  return body;
}

/** The job as the printer prints it, or undefined when it cannot (PDF, ZPL, ESC/POS, StarPRNT). */
function eposPrintOf(job: ClaimedJob): string | undefined {
  const text = Buffer.from(job.document.content_base64, 'base64').toString('utf8');
  if (job.content_type === 'application/vnd.epson.epos-print+xml') return eposPrintOfDocument(text);
  if (job.content_type === 'text/plain') return eposPrintOfText(text);
  return undefined;
}

/** The printer's state as its last printing result says it: idle, or stopped and why. */
function stateAfter(name: string, outcome: SdpOutcome, words: string): PrinterInfo {
  const reason =
    outcome.kind !== 'wait'
      ? []
      : [outcome.code === 'printer_out_of_paper' ? 'media-empty-error' : 'cover-open-error'];
  return {
    name,
    is_default: true,
    accepting_jobs: null,
    state: reason.length > 0 ? 'stopped' : 'idle',
    reasons: reason,
    message: reason.length > 0 ? words : null,
    capabilities: { content_types: ['application/vnd.epson.epos-print+xml', 'text/plain'] },
  };
}

/**
 * Presence, at most once per half heartbeat interval: a request with nothing new writes
 * nothing. It extends no lease: a printer prints what it was answered within the answer's
 * timeout (10 s) and says so at once, so a claim still held after the lease (120 s) is one
 * whose answer or result was lost for good, and it fails by its lease however often the
 * printer asks for work meanwhile.
 */
async function notePresence(
  { printing, config }: CloudPrntDeps,
  db: Db,
  agent: CallingPrinter['agent'],
  now: Date,
): Promise<void> {
  const stored = await memberLastSeen(db, agent);
  const halfBeat = isoNow(new Date(now.getTime() - (config.heartbeatSeconds * 1000) / 2));
  if (stored.online && stored.lastSeenAt !== null && stored.lastSeenAt >= halfBeat) return;
  await recordMemberSeen(printing.queue, db, agent, undefined, [], now, config.leaseSeconds);
}

/**
 * The answer to a print request: `<PrintRequestInfo>` with the next job of the printer's route,
 * claimed for it, its claim token the `printjobid`; '' (an empty 200, the manual's "no print
 * data") when there is none. While the printer holds a claim it is given nothing: it printed
 * it or is about to say it could not, and giving the same job again could print it twice (a
 * claim whose answer was lost on the way fails by its lease, as every agent's: it may have
 * printed). A printer whose last result said no paper or cover open is offered its job again:
 * ePOS-Print refuses it before printing while the fault lasts, and prints it once cleared.
 */
export async function answerPrintRequest(
  deps: CloudPrntDeps,
  db: Db,
  printer: CallingPrinter,
): Promise<string> {
  const { printing, clock, config } = deps;
  const { row, agent } = printer;
  const now = clock.now();
  await notePresence(deps, db, agent, now);
  const held = parseJobToken(row.job_token);
  if (held && row.job_token) {
    if (await memberHolds(printing.queue, db, agent, held.jobId)) return '';
    // Its lease ran out (the sweep failed it), or another instance recorded its result.
    await clearJobToken(db, row.id, row.job_token);
  }
  if (!(await jobQueuedOn(printing.queue, db, agent, row.route))) return '';
  for (let refused = 0; refused < maxRefused; refused++) {
    const job = await claimForMember(printing.queue, db, agent, clock.now(), config.leaseSeconds);
    if (!job) return '';
    const eposPrint = eposPrintOf(job);
    if (eposPrint !== undefined) {
      const token = jobTokenOf(job.id, job.attempts);
      await saveJobToken(db, row.id, token);
      return printRequestInfo([{ printJobId: token, eposPrint }]);
    }
    const message = `an Epson printer on Server Direct Print cannot print ${job.content_type}: route ${row.route} prints ePOS-Print XML or plain text`;
    const report = { message, code: 'unsupported_content_type' };
    await failMemberJob(printing.queue, db, agent, job.id, report, now).catch(ignoreNotHeld);
  }
  return '';
}

/**
 * A printing result (`SetResponse`): the result for the claim the printer holds, by its
 * `printjobid` (or the one result of a `Version="1.00"` file, which names no job), acted on
 * once: printed, given back waiting for paper or a closed cover, or failed. The printer's
 * state follows (stopped while a fault is reported, idle once a job printed). A result for
 * any other job, or repeated, changes nothing.
 */
export async function recordPrintResult(
  { printing, clock, config }: CloudPrntDeps,
  db: Db,
  { row, agent }: CallingPrinter,
  responseFile: string,
): Promise<void> {
  const token = row.job_token;
  const claim = parseJobToken(token);
  if (!token || !claim) return;
  const results = readPrintResults(responseFile);
  const result =
    results.find((r) => r.printJobId === token) ??
    (results.length === 1 && results[0]!.printJobId === null ? results[0] : undefined);
  if (!result) return;
  const now = clock.now();
  const outcome = outcomeOf(result);
  const jobId = claim.jobId;
  if (outcome.kind === 'printed') {
    await confirmMemberJob(printing.queue, db, agent, jobId, undefined, now).catch(ignoreNotHeld);
  } else if (outcome.kind === 'wait') {
    const reason = { code: outcome.code, message: outcome.message };
    await releaseMemberJob(printing.queue, db, agent, jobId, reason, now).catch(ignoreNotHeld);
  } else {
    const report = { message: outcome.message, code: outcome.code };
    await failMemberJob(printing.queue, db, agent, jobId, report, now).catch(ignoreNotHeld);
  }
  await clearJobToken(db, row.id, token);
  const stored = await memberLastSeen(db, agent);
  const words = outcome.kind === 'printed' ? '' : outcome.message;
  const state = stateAfter(stored.printer?.name ?? 'epson', outcome, words);
  const same =
    stored.printer?.state === state.state &&
    stored.printer.reasons.join(' ') === state.reasons.join(' ');
  if (!same) {
    await recordMemberSeen(printing.queue, db, agent, state, [], now, config.leaseSeconds);
  }
}
