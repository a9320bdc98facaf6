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

/** The history row's columns, in the order every insert of them names. */
const historyColumns = `"company_id", "job_id", "from_status", "to_status", "agent_id", "message", "at"`;

/** A transition as SQL over the columns of the rows a statement changed (`historyFrom`). */
export interface TransitionSql {
  from: string;
  to: string;
  agent: string;
  message: string;
  at: string;
}

/**
 * The history rows of the jobs a statement changed, as the `INSERT ... SELECT` that the
 * statement runs as one of its CTEs (PostgreSQL: the claim, the confirm and the create are
 * one statement each): one row per row of `source` (the CTE of changed jobs, with the
 * job's columns), its transition given as SQL over them. With `transitionStatement` and
 * `writeTrail` below (a transition's values), the only inserts of the history.
 */
export function historyFrom(source: string, t: TransitionSql, returning?: string): string {
  const back = returning === undefined ? '' : `\n  returning ${returning}`;
  return `insert into "print_job_events" (${historyColumns})
  select "company_id", "id", ${t.from}, ${t.to}, ${t.agent}, ${t.message}, ${t.at}
  from "${source}"${back}`;
}

/** A claim's history row, from the claimed job's row. */
export const claimedHistory: TransitionSql = {
  from: `'queued'`,
  to: `'claimed'`,
  agent: '"agent_id"',
  message: 'null',
  at: '"updated_at"',
};

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
