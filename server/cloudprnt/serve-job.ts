import type { ClaimedJob } from '../../shared/printing.ts';
import { printerCanPrint } from '../../shared/wait-reasons.ts';
import { claimForMember, failMemberJob, heldJobOf, memberLastSeen } from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { ignoreNotHeld } from './answer-poll.ts';
import type { CallingPrinter, CloudPrntDeps } from './member.ts';
import { capabilitiesOf, clearJobToken, saveJobToken } from './printer-rows.ts';
import { jobTokenOf, mediaTypesFor, parseJobToken } from './protocol.ts';

/** A job as the printer gets it: its bytes, in the media type they are, and its token. */
export interface ServedJob {
  bytes: Buffer;
  mediaType: string;
  token: string;
}

/** Jobs the printer cannot take, failed one after the other, before the GET gives up. */
const maxRefused = 10;

/**
 * The printer's GET: the job it already holds, again (a repeated GET claims nothing), else the
 * next job of its route, claimed for it with a lease, its token kept until the DELETE.
 * Undefined (404) when there is none, or while the printer last said it cannot print. A job
 * the printer cannot take (no media type it accepts) fails with the reason and the next is
 * claimed.
 */
export async function serveJob(
  { printing, clock, config }: CloudPrntDeps,
  db: Db,
  { row, agent }: CallingPrinter,
): Promise<ServedJob | undefined> {
  const encodings = capabilitiesOf(row).encodings;
  const held = parseJobToken(row.job_token);
  if (held && row.job_token) {
    const job = await heldJobOf(printing.queue, db, agent, held.jobId);
    const mediaType = job && mediaTypesFor(job.content_type, encodings)[0];
    if (job && mediaType) return served(job, mediaType, row.job_token);
    await clearJobToken(db, row.id, row.job_token);
  }
  const { printer } = await memberLastSeen(db, agent);
  if (printer && !printerCanPrint(printer)) return undefined;
  for (let refusedJobs = 0; refusedJobs < maxRefused; refusedJobs++) {
    const now = clock.now();
    const job = await claimForMember(printing.queue, db, agent, now, config.leaseSeconds);
    if (!job) return undefined;
    const mediaType = mediaTypesFor(job.content_type, encodings)[0];
    if (mediaType) {
      const token = jobTokenOf(job.id, job.attempts);
      await saveJobToken(db, row.id, token);
      return served(job, mediaType, token);
    }
    const message = `a Star CloudPRNT printer cannot print ${job.content_type}: route ${row.route} prints StarPRNT or plain text${encodings ? ` (the printer takes ${encodings.join(', ')})` : ''}`;
    await failMemberJob(
      printing.queue,
      db,
      agent,
      job.id,
      { message, code: 'unsupported_content_type' },
      now,
    ).catch(ignoreNotHeld);
  }
  return undefined;
}

const served = (job: ClaimedJob, mediaType: string, token: string): ServedJob => ({
  bytes: Buffer.from(job.document.content_base64, 'base64'),
  mediaType,
  token,
});
