import type { ContentType, JobRecord, PrintOptions } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { PrintQueue } from './print-queue.ts';
import { toJobRecord } from './records.ts';

/** A job to queue, as `POST /printing/jobs` (and `shopdesk job create`) give it. */
export interface JobToCreate {
  route: string;
  title?: string | undefined;
  content_type: ContentType;
  content: Buffer;
  copies: number;
  priority: number;
  options: PrintOptions;
  /** Seconds after which the job expires unless an agent claimed it. */
  expires_in?: number | undefined;
  /** The server's hold limit, for a job without `expires_in` (`expiryOf`). */
  holdSeconds?: number | undefined;
}

/** The hold limit of a server started without one (`serve --hold-limit`). */
export const defaultHoldSeconds = 24 * 3600;

/**
 * When a job expires unless an agent claims it: `expires_in` seconds from now, else the hold
 * limit (a job never waits for a printer forever); null when neither applies (a limit of 0).
 */
export const expiryOf = (
  expiresIn: number | undefined,
  now: Date,
  holdSeconds = defaultHoldSeconds,
): string | null => {
  const seconds = expiresIn ?? (holdSeconds > 0 ? holdSeconds : undefined);
  return seconds === undefined ? null : isoNow(new Date(now.getTime() + seconds * 1000));
};

/** A new queued job; the agents waiting on its route are woken once it has committed. */
export async function createJob(
  { store }: PrintQueue,
  db: Db,
  companyId: number,
  input: JobToCreate,
  now: Date,
): Promise<JobRecord> {
  const row = await store.create(db, {
    companyId,
    content: input.content,
    route: input.route,
    title: input.title ?? null,
    contentType: input.content_type,
    copies: input.copies,
    priority: input.priority,
    options: JSON.stringify(input.options),
    createdAt: isoNow(now),
    expiresAt: expiryOf(input.expires_in, now, input.holdSeconds),
  });
  return toJobRecord(row);
}
