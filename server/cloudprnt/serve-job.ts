import type { ClaimedJob } from '../../shared/printing.ts';
import { printerCanPrint } from '../../shared/wait-reasons.ts';
import {
  claimForMember,
  failMemberJob,
  heldJobOf,
  memberLastSeen,
  readRouteProfile,
} from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { ignoreNotHeld } from './answer-poll.ts';
import type { CallingPrinter, CloudPrntDeps } from './member.ts';
import { capabilitiesOf, clearJobToken, saveJobToken, takeClaimNumber } from './printer-rows.ts';
import {
  claimNumberOf,
  jobTokenOf,
  mediaTypesFor,
  type PrinterControls,
  parseJobToken,
  printerControlsFor,
} from './protocol.ts';

/**
 * A job as the printer gets it: its bytes, in the media type they are, the claim's name
 * (`<job id>.<attempt>`), and what it asks of the printer's cutter and drawer.
 */
export interface ServedJob {
  bytes: Buffer;
  mediaType: string;
  token: string;
  controls: PrinterControls;
}

/** Jobs the printer cannot take, failed one after the other, before the GET gives up. */
const maxRefused = 10;

/**
 * The printer's GET: the job it already holds, again (a repeated GET claims nothing), else the
 * next job of its route, claimed for it with a lease, its token kept until the DELETE.
 * Undefined (404) when there is none, or while the printer last said it cannot print. A job
 * the printer cannot take (no media type it accepts) fails with the reason and the next is
 * claimed.
 *
 * `token` is the CloudPRNT job token the printer sends back (protocol.ts, `claimTokenOf`):
 * its held claim's number serves that claim again, its next claim's number (what the poll
 * handed out) makes that claim, and any other (a claim that ended, a token never given) serves
 * nothing, as Star's 404 says "no data is available". Without one (older firmware), the held
 * claim or the next, as before tokens.
 */
export async function serveJob(
  deps: CloudPrntDeps,
  db: Db,
  printer: CallingPrinter,
  token: string | undefined,
): Promise<ServedJob | undefined> {
  const { row, agent } = printer;
  const named = token === undefined ? undefined : claimNumberOf(token);
  if (row.job_token) {
    if (named !== undefined && named !== row.claims) return undefined;
    const again = await heldJob(deps, db, printer, row.job_token);
    // A claim that ended (its lease ran out, confirmed through another instance) is served
    // no more: a token naming it gets nothing; without a token, the next claim is made.
    if (again || named !== undefined) return again;
  } else if (named !== undefined && named !== row.claims + 1) {
    return undefined;
  }
  const { printer: seen } = await memberLastSeen(db, agent, row.route);
  if (seen && !printerCanPrint(seen)) return undefined;
  if (!(await takeClaimNumber(db, row.id, row.claims + 1))) return undefined;
  return claimNext(deps, db, printer);
}

/** The job of the claim the printer holds, served again; undefined (and forgotten) once ended. */
async function heldJob(
  { printing }: CloudPrntDeps,
  db: Db,
  { row, agent }: CallingPrinter,
  jobToken: string,
): Promise<ServedJob | undefined> {
  const held = parseJobToken(jobToken);
  const job = held && (await heldJobOf(printing.queue, db, agent, held.jobId));
  const mediaType = job && mediaTypesFor(job.content_type, capabilitiesOf(row).encodings)[0];
  if (job && mediaType) return served(db, { row, agent }, job, mediaType, jobToken);
  await clearJobToken(db, row.id, jobToken);
  return undefined;
}

/** The next job of the printer's route, claimed for it (its claim number already taken). */
async function claimNext(
  { printing, clock, config }: CloudPrntDeps,
  db: Db,
  { row, agent }: CallingPrinter,
): Promise<ServedJob | undefined> {
  const encodings = capabilitiesOf(row).encodings;
  for (let refusedJobs = 0; refusedJobs < maxRefused; refusedJobs++) {
    const now = clock.now();
    const job = await claimForMember(printing.queue, db, agent, now, config.leaseSeconds);
    if (!job) return undefined;
    const mediaType = mediaTypesFor(job.content_type, encodings)[0];
    if (mediaType) {
      const token = jobTokenOf(job.id, job.attempts);
      await saveJobToken(db, row.id, token);
      return served(db, { row, agent }, job, mediaType, token);
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

/** The job's bytes, and, for plain text, the cut and drawer its route's profile asks for. */
async function served(
  db: Db,
  { row, agent }: CallingPrinter,
  job: ClaimedJob,
  mediaType: string,
  token: string,
): Promise<ServedJob> {
  const profile =
    mediaType === 'text/plain' ? await readRouteProfile(db, agent.rowId, row.route) : null;
  return {
    bytes: Buffer.from(job.document.content_base64, 'base64'),
    mediaType,
    token,
    controls: printerControlsFor(mediaType, profile),
  };
}
