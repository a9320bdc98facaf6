import { confirmMemberJob, failMemberJob, releaseMemberJob } from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { ignoreNotHeld } from './answer-poll.ts';
import type { CallingPrinter, CloudPrntDeps } from './member.ts';
import { clearJobToken } from './printer-rows.ts';
import { claimNumberOf, confirmationOf, parseJobToken } from './protocol.ts';

/**
 * The printer's DELETE: `code` 2xx (or `OK`) confirms the claim it holds; 520 (its download
 * timed out) gives it back to the queue; any other fails it with the code and words. The claim
 * is the one the job token kept at its GET names, acted on once: the token is cleared with it,
 * so a repeated DELETE changes nothing. A DELETE that sends CloudPRNT's `token` back acts only
 * when it names the claim the printer holds: one naming a claim that ended, or none ShopDesk
 * gave, changes nothing.
 */
export async function confirmServedJob(
  { printing, clock }: CloudPrntDeps,
  db: Db,
  { row, agent }: CallingPrinter,
  query: { code?: string | undefined; token?: string | undefined },
): Promise<void> {
  const token = row.job_token;
  if (!token) return;
  if (query.token !== undefined && claimNumberOf(query.token) !== row.claims) return;
  const claim = parseJobToken(token);
  if (!claim) return;
  const now = clock.now();
  const outcome = confirmationOf(query.code);
  if (outcome.printed) {
    await confirmMemberJob(printing.queue, db, agent, claim.jobId, undefined, now).catch(
      ignoreNotHeld,
    );
  } else if (outcome.unprinted) {
    // Nothing came out: the job goes back to the queue, waiting as a printer off the network.
    const reason = { code: 'printer_offline', message: outcome.message };
    await releaseMemberJob(printing.queue, db, agent, claim.jobId, reason, now).catch(
      ignoreNotHeld,
    );
  } else {
    const report = { message: outcome.message, code: outcome.code };
    await failMemberJob(printing.queue, db, agent, claim.jobId, report, now).catch(ignoreNotHeld);
  }
  await clearJobToken(db, row.id, token);
}
