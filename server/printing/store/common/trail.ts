import type { JobStatus } from '../../../../shared/printing.ts';
import type { Db } from '../../../storage/db.ts';
import { prepared } from '../../../storage/prepared.ts';

/** A change of a job's status, as its row of `print_job_events` (the job's trail) records it. */
export interface Transition {
  companyId: number;
  jobId: number;
  from: JobStatus | null;
  to: JobStatus;
  agentId: string | null;
  message: string | null;
  at: string;
}

/** The row of `print_job_events` that records a transition. */
export const eventRowOf = (t: Transition) => ({
  company_id: t.companyId,
  job_id: t.jobId,
  from_status: t.from,
  to_status: t.to,
  agent_id: t.agentId,
  message: t.message,
  at: t.at,
});

/**
 * One transition, compiled once: every job created, confirmed or failed writes one, and the
 * SQLite store's claim and confirm run it with `.sync`.
 */
export const transitionStatement = prepared<Transition, never>((db, t) =>
  db.insertInto('print_job_events').values(eventRowOf(t)),
);

/** Writes the transitions' rows (a sweep may write thousands: in chunks, as SQLite bounds parameters). */
export async function writeTrail(db: Db, transitions: readonly Transition[]): Promise<void> {
  if (transitions.length === 1) {
    await transitionStatement(db, transitions[0]!);
    return;
  }
  for (let start = 0; start < transitions.length; start += 500) {
    await db
      .insertInto('print_job_events')
      .values(transitions.slice(start, start + 500).map(eventRowOf))
      .execute();
  }
}
