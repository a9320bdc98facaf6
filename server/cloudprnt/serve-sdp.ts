import type { PrinterInfo } from '../../shared/printer-info.ts';
import type { ClaimedJob } from '../../shared/printing.ts';
import { printerCanPrint } from '../../shared/wait-reasons.ts';
import {
  agentPresentSeconds,
  claimForMember,
  confirmMemberJob,
  failMemberJob,
  memberHolds,
  memberLastSeen,
  memberPresenceDue,
  memberPresentSeconds,
  recordMemberSeen,
  releaseMemberJob,
} from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { ignoreNotHeld } from './answer-poll.ts';
import {
  eposPrintOfText,
  outcomeOf,
  printerStateOfAsb,
  printRequestInfo,
  readPrintResults,
  readStatusNotification,
  type SdpOutcome,
  type SdpPrinterState,
} from './epson-sdp.ts';
import type { CallingPrinter, CloudPrntDeps } from './member.ts';
import { clearJobToken, saveJobToken, saveStatusAt } from './printer-rows.ts';
import { jobTokenOf, parseJobToken } from './protocol.ts';

/**
 * Epson Server Direct Print served (docs/cloudprnt.md): a print request (`GetRequest`) is the
 * printer's heartbeat and its fetch at once, answered with the next job of its route as
 * ePOS-Print XML, claimed for it with a lease, or with an empty body; the printing result
 * (`SetResponse`) confirms, gives back or fails that claim, once; the status notification
 * (`SetStatus`) is the printer's state, and while it says the printer cannot print, print
 * requests are answered with nothing.
 */

type Stored = Awaited<ReturnType<typeof memberLastSeen>>;

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

/** The printer as its agent lists it, in `state`: it takes ePOS-Print XML and plain text. */
function eposPrinter(name: string, state: SdpPrinterState): PrinterInfo {
  return {
    name,
    is_default: true,
    accepting_jobs: null,
    ...state,
    capabilities: { content_types: ['application/vnd.epson.epos-print+xml', 'text/plain'] },
  };
}

const sameState = (a: PrinterInfo | undefined, b: SdpPrinterState) =>
  a !== undefined &&
  a.state === b.state &&
  a.message === b.message &&
  a.reasons.join(' ') === b.reasons.join(' ');

/**
 * The printer's state after a printing result, or undefined to leave it as it is: stopped,
 * with the reason, when the printer could not print (already said: unchanged). Once it
 * answered otherwise, idle; but while its status notifications are heard (`notified`), they
 * say its state (a result says how one job went, not whether paper is in now), and a state
 * that already lets it print is kept (a paper-low warning).
 */
function stateAfter(
  outcome: SdpOutcome,
  stored: PrinterInfo | undefined,
  notified: boolean,
): SdpPrinterState | undefined {
  if (outcome.kind === 'wait') {
    const reason =
      outcome.code === 'printer_out_of_paper' ? 'media-empty-error' : 'cover-open-error';
    if (stored?.state === 'stopped' && stored.reasons.includes(reason)) return undefined;
    return { state: 'stopped', reasons: [reason], message: outcome.message };
  }
  if (notified) return undefined;
  if (stored && stored.state !== 'unknown' && printerCanPrint(stored)) return undefined;
  return { state: 'idle', reasons: [], message: null };
}

/**
 * Whether presence is due: not written for half a heartbeat interval, or the member is offline.
 * ShopDesk does not learn the interval an Epson printer is set to (docs/cloudprnt.md, 2 to 5 s):
 * it is present for two heartbeat intervals, as an agent.
 */
const presenceDue = (stored: Stored, now: Date, heartbeatSeconds: number): boolean =>
  memberPresenceDue(stored, now, heartbeatSeconds, undefined);

/** The lease a claim gets, and how long the printer is present once heard. */
const intervalsOf = (config: CloudPrntDeps['config']) => ({
  leaseSeconds: config.leaseSeconds,
  presentSeconds: memberPresentSeconds(config.heartbeatSeconds, undefined),
});

/**
 * Presence, at most once per half heartbeat interval: a request with nothing new writes
 * nothing. It extends no lease: a printer prints what it was answered within the answer's
 * timeout (10 s) and says so at once, so a claim still held after the lease (120 s) is one
 * whose answer or result was lost for good, and it fails by its lease however often the
 * printer asks for work meanwhile. The member as stored, for what follows to read.
 */
async function notePresence(
  { printing, config }: CloudPrntDeps,
  db: Db,
  { agent, row }: CallingPrinter,
  now: Date,
): Promise<Stored> {
  const stored = await memberLastSeen(db, agent, row.route);
  if (presenceDue(stored, now, config.heartbeatSeconds)) {
    await recordMemberSeen(printing.queue, db, agent, undefined, [], now, intervalsOf(config));
  }
  return stored;
}

/**
 * Whether the printer's status notifications are heard: one came within two heartbeat
 * intervals (the time after which an agent counts as offline). Not when they were never set
 * up, or were turned off.
 */
function notificationsHeard(row: CallingPrinter['row'], now: Date, heartbeatSeconds: number) {
  return (
    row.status_at !== null &&
    row.status_at >= isoNow(new Date(now.getTime() - agentPresentSeconds(heartbeatSeconds) * 1000))
  );
}

/**
 * Whether the printer's own status notifications say it cannot print now. Without them the
 * state is only what its last printing result said, and the print request is answered as
 * before: the printer itself refuses a job it cannot print.
 */
function statusHoldsBack(
  row: CallingPrinter['row'],
  stored: Stored,
  now: Date,
  heartbeatSeconds: number,
): boolean {
  if (!stored.printer || printerCanPrint(stored.printer)) return false;
  return notificationsHeard(row, now, heartbeatSeconds);
}

/**
 * The answer to a print request: `<PrintRequestInfo>` with the next job of the printer's route,
 * claimed for it, its claim token the `printjobid`; '' (an empty 200, the manual's "no print
 * data") when there is none. While the printer holds a claim it is given nothing: it printed
 * it or is about to say it could not, and giving the same job again could print it twice (a
 * claim whose answer was lost on the way fails by its lease, as every agent's: it may have
 * printed). A printer whose status notifications say it cannot print (no paper, cover open,
 * offline) is given nothing; one whose last result said no paper or cover open, and that sends
 * no notifications, is offered its job again: ePOS-Print refuses it before printing while the
 * fault lasts, and prints it once cleared.
 */
export async function answerPrintRequest(
  deps: CloudPrntDeps,
  db: Db,
  printer: CallingPrinter,
): Promise<string> {
  const { printing, clock, config } = deps;
  const { row, agent } = printer;
  const now = clock.now();
  const stored = await notePresence(deps, db, printer, now);
  if (statusHoldsBack(row, stored, now, config.heartbeatSeconds)) return '';
  const held = parseJobToken(row.job_token);
  if (held && row.job_token) {
    if (await memberHolds(printing.queue, db, agent, held.jobId)) return '';
    // Its lease ran out (the sweep failed it), or another instance recorded its result.
    await clearJobToken(db, row.id, row.job_token);
  }
  if (!stored.jobQueued) return '';
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
  const stored = await memberLastSeen(db, agent, row.route);
  const notified = notificationsHeard(row, now, config.heartbeatSeconds);
  const state = stateAfter(outcome, stored.printer, notified);
  if (state && !sameState(stored.printer, state)) {
    const printer = eposPrinter(stored.printer?.name ?? 'epson', state);
    await recordMemberSeen(printing.queue, db, agent, printer, [], now, intervalsOf(config));
  }
}

/**
 * A status notification (`SetStatus`): the printer's ASB bits read as its state, written when
 * it changed, with presence at most once per half heartbeat interval, and when it was heard
 * (as often): a notification that says nothing new writes nothing. A claim the printer holds
 * is left to its printing result: the job may have printed before the paper ran out. A
 * `Status` with nothing to read is taken and left.
 */
export async function recordStatusNotification(
  { printing, clock, config }: CloudPrntDeps,
  db: Db,
  { row, agent }: CallingPrinter,
  status: string,
): Promise<void> {
  const bits = readStatusNotification(status);
  if (bits === undefined) return;
  const now = clock.now();
  const stored = await memberLastSeen(db, agent, row.route);
  const state = printerStateOfAsb(bits);
  const changed = !sameState(stored.printer, state);
  if (changed || presenceDue(stored, now, config.heartbeatSeconds)) {
    const printer = changed ? eposPrinter(stored.printer?.name ?? 'epson', state) : undefined;
    await recordMemberSeen(printing.queue, db, agent, printer, [], now, intervalsOf(config));
  }
  const halfBeat = isoNow(new Date(now.getTime() - (config.heartbeatSeconds * 1000) / 2));
  if (row.status_at === null || row.status_at < halfBeat) {
    await saveStatusAt(db, row.id, isoNow(now));
  }
}
