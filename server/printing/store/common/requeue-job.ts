import { type QueryCreator, sql } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import { prepared } from '../../../storage/prepared.ts';
import type { Database } from '../../../storage/schema.ts';
import type { JobChange, JobRow, Requeue } from '../queue-store.ts';
import type { JobOperation } from './batcher.ts';
import type { Transition, TransitionSql } from './trail.ts';

/** A requeue's values as its statements bind them: every field present, none undefined. */
export interface RequeueParams {
  companyId: number;
  jobId: number;
  from: Requeue['from'];
  agentId: string | null;
  expiresAt: string | null;
  now: string;
  heldBy: string | null;
  message: string;
}

export const requeueParams = (request: Requeue): RequeueParams => ({
  companyId: request.companyId,
  jobId: request.jobId,
  from: request.from,
  agentId: request.agentId,
  expiresAt: request.expiresAt,
  now: request.now,
  heldBy: request.heldBy ?? null,
  message: request.message ?? 'retry',
});

/**
 * `from → queued` under the same id (a retry, or a held job given back by its agent, then
 * only while that agent holds it), only while the job is still `from`: agent, printer, error
 * and claim cleared, the expiry given. It returns the event's values with the row, so that
 * one statement can write the event from them (PostgreSQL, `requeuedHistory`).
 */
export const requeueUpdate = (db: QueryCreator<Database>, p: RequeueParams) =>
  db
    .updateTable('print_jobs')
    .set({
      status: 'queued',
      agent_id: null,
      printer: null,
      error_message: null,
      error_code: null,
      claimed_at: null,
      printed_at: null,
      lease_expires_at: null,
      expires_at: p.expiresAt,
      // A new wait: print_job.held may be sent for it again.
      held_noticed_at: null,
      updated_at: p.now,
    })
    .where('id', '=', p.jobId)
    .where('company_id', '=', p.companyId)
    // The state read before must still hold (PostgreSQL: another instance may act too).
    .where('status', '=', p.from)
    .where(sql<boolean>`(cast(${p.heldBy} as text) is null or agent_id = ${p.heldBy})`)
    .returningAll()
    .returning([
      sql<string>`cast(${p.from} as text)`.as('event_from'),
      sql<string | null>`cast(${p.agentId} as text)`.as('event_agent'),
      sql<string>`cast(${p.message} as text)`.as('event_message'),
    ]);

/** The requeued job's row, with the event's values it was returned with. */
export type RequeuedRow = JobRow & {
  event_from: string;
  event_agent: string | null;
  event_message: string;
};

/** `requeueUpdate`, compiled once (SQLite runs it with `.sync`). */
export const requeueStatement = prepared<RequeueParams, RequeuedRow>((db, p) =>
  requeueUpdate(db, p),
);

/** The job's row without the event's values. */
export function jobRowOf({ event_from, event_agent, event_message, ...row }: RequeuedRow): JobRow {
  return row;
}

/** The requeue's row of the trail. */
export const requeuedTransition = (p: RequeueParams): Transition => ({
  companyId: p.companyId,
  jobId: p.jobId,
  from: p.from,
  to: 'queued',
  agentId: p.agentId,
  message: p.message,
  at: p.now,
});

/** `requeuedTransition` from the columns `requeueUpdate` returns (PostgreSQL). */
export const requeuedHistory: TransitionSql = {
  from: '"event_from"',
  to: `'queued'`,
  agent: '"event_agent"',
  message: '"event_message"',
  at: '"updated_at"',
};

/**
 * The requeue as the batcher runs it: a held job given back with a wait reason is
 * `released` (`print_job.waiting`, with the reason), any other `requeued` (no event).
 */
export function requeueOperation(
  write: (
    db: Db,
    batch: RequeueParams[],
  ) => (JobRow | undefined)[] | Promise<(JobRow | undefined)[]>,
): JobOperation<Requeue, JobRow | undefined> {
  const kindOf = (request: Requeue) => (request.waitReason ? 'released' : 'requeued');
  return {
    kindOf,
    companyOf: (request) => request.companyId,
    changesOf: (batch, rows) =>
      rows.flatMap((row, i): JobChange[] => {
        const { waitReason } = batch[i]!;
        if (!row) return [];
        return [waitReason ? { kind: 'released', row, waitReason } : { kind: 'requeued', row }];
      }),
    write: (db, batch) => write(db, batch.map(requeueParams)),
  };
}
