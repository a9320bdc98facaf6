import type { JobDetail } from '../../../shared/printing.ts';
import { NotFound } from '../../domain-errors.ts';
import type { Db } from '../../storage/db.ts';
import type { JobRow, PrintQueueStore } from '../store/queue-store.ts';
import { toJobDetail } from './records.ts';

/**
 * Refuses, by throwing, a job the caller may not touch (a token bound to one agent: a job
 * another agent held); the route supplies it, since the refusal is the caller's, not the job's.
 */
export type JobGuard = (job: JobRow) => void;

/** The company's job, or 404. */
export async function readJobRow(
  store: PrintQueueStore,
  db: Db,
  companyId: number,
  jobId: number,
): Promise<JobRow> {
  const row = await store.read(db, companyId, jobId);
  if (!row) throw new NotFound('Print job');
  return row;
}

/** The company's job with its trail of events. */
export async function readJobDetail(
  store: PrintQueueStore,
  db: Db,
  companyId: number,
  jobId: number,
  guard?: JobGuard,
): Promise<JobDetail> {
  const row = await readJobRow(store, db, companyId, jobId);
  guard?.(row);
  return toJobDetail(row, await store.trail(db, jobId));
}
