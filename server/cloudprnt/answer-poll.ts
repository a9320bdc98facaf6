import type { PrinterInfo } from '../../shared/printer-info.ts';
import { printerCanPrint, printerWaitReason } from '../../shared/wait-reasons.ts';
import { isDomainError } from '../domain-errors.ts';
import {
  memberHolds,
  memberLastSeen,
  memberPresenceDue,
  memberPresentSeconds,
  recordMemberModel,
  recordMemberSeen,
  releaseMemberJob,
} from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import type { CallingPrinter, CloudPrntDeps } from './member.ts';
import { capabilitiesOf, clearJobToken, saveCapabilities } from './printer-rows.ts';
import {
  capabilitiesFrom,
  claimTokenOf,
  clientActionsToAsk,
  type PollRequest,
  type PollResponse,
  parseJobToken,
  printerStateOf,
} from './protocol.ts';

/**
 * The media types offered before a job is claimed, and the bytes the printer takes: what the
 * route's StarPRNT profile renders, and plain text.
 */
const offered = ['application/vnd.star.starprnt', 'text/plain'];

const sameState = (a: PrinterInfo | undefined, b: PrinterInfo) =>
  a !== undefined &&
  a.state === b.state &&
  a.message === b.message &&
  a.reasons.join(' ') === b.reasons.join(' ') &&
  JSON.stringify(a.capabilities) === JSON.stringify(b.capabilities);

/**
 * Answers a printer's poll. The poll is its heartbeat: it is present for three of its polling
 * intervals, two heartbeat intervals at least (docs/cloudprnt.md, "Online"), and presence is
 * written at most once per half heartbeat interval (half its polling interval when that is
 * longer), and the printer's state only when it changed, so a poll with nothing to print and
 * nothing new costs reads only. A printer that holds a claim and now
 * says it cannot print (out of paper, cover open) gives it back, waiting with the reason (once
 * it recovers, its next GET claims it again); a printer that cannot print, or holds a claim,
 * is never told a job is ready. A job ready comes with its job token, which names the claim
 * the printer's GET will make (serve-job.ts); handing it out writes nothing.
 */
export async function answerPoll(
  deps: CloudPrntDeps,
  db: Db,
  { row, agent }: CallingPrinter,
  poll: PollRequest,
): Promise<PollResponse> {
  const { printing, clock, config } = deps;
  const now = clock.now();
  const stored = await memberLastSeen(db, agent, row.route);
  const name = stored.printer?.name ?? 'cloudprnt';
  const known = capabilitiesOf(row);
  const learnt = capabilitiesFrom(known, poll.clientAction);
  const takes = learnt.encodings
    ? offered.filter((type) => learnt.encodings!.includes(type))
    : offered;
  const seen: PrinterInfo = {
    name,
    is_default: true,
    accepting_jobs: null,
    ...printerStateOf(poll),
    // What POST /printing/jobs checks bytes against (422 for those it cannot take).
    capabilities: { content_types: takes },
  };
  if (learnt !== known) {
    await saveCapabilities(db, row.id, learnt);
    if (learnt.clientType !== undefined && learnt.clientType !== known.clientType) {
      await recordMemberModel(db, agent, learnt.clientType, now);
    }
  }
  const held = parseJobToken(row.job_token);
  const interval = learnt.pollIntervalSeconds;
  // A polling interval learnt (or changed) sets how long the printer is present: written now.
  const stale =
    memberPresenceDue(stored, now, config.heartbeatSeconds, interval) ||
    interval !== known.pollIntervalSeconds;
  const changed = !sameState(stored.printer, seen);
  if (stale || changed) {
    await recordMemberSeen(
      printing.queue,
      db,
      agent,
      changed ? seen : undefined,
      // A claim's lease is kept only while the printer says it is printing it: a printer that
      // polls on and never confirms must not hold its job for ever (the lease ends, the sweep
      // fails the job with lease_expired).
      held && poll.printingInProgress === true ? [held.jobId] : [],
      now,
      {
        leaseSeconds: config.leaseSeconds,
        presentSeconds: memberPresentSeconds(config.heartbeatSeconds, interval),
      },
    );
  }
  const asks = clientActionsToAsk(learnt);
  const answer = (ready: PollResponse): PollResponse =>
    asks.length > 0 ? { ...ready, clientAction: asks } : ready;
  if (!printerCanPrint(seen)) {
    if (held && row.job_token && poll.printingInProgress !== true) {
      const reason = printerWaitReason(seen) ?? { code: 'printer_stopped', message: 'stopped' };
      await releaseMemberJob(printing.queue, db, agent, held.jobId, reason, now).catch(
        ignoreNotHeld,
      );
      await clearJobToken(db, row.id, row.job_token);
    }
    return answer({ jobReady: false });
  }
  // A printer holding a claim is printing it, or retrying its DELETE: it is offered nothing
  // (offering the same job again would print it twice). A printer that could not print it
  // said so with a 4xx (the claim was given back above) or a DELETE with its code.
  if (held && row.job_token) {
    if (await memberHolds(printing.queue, db, agent, held.jobId))
      return answer({ jobReady: false });
    // Its lease ran out (the sweep failed it) or it was confirmed through another instance.
    await clearJobToken(db, row.id, row.job_token);
  }
  if (!stored.jobQueued) return answer({ jobReady: false });
  // The token names the claim the GET it asks for will make: the printer's next.
  return answer({ jobReady: true, mediaTypes: takes, jobToken: claimTokenOf(row.claims + 1) });
}

/** A claim that is no longer the printer's (the sweep, another instance) needs nothing more. */
export function ignoreNotHeld(error: unknown): void {
  if (isDomainError(error)) return;
  throw error;
}
