import type { QueryCreator } from 'kysely';
import { prepared } from '../../../storage/prepared.ts';
import type { Database } from '../../../storage/schema.ts';
import type { Cancel, JobRow } from '../queue-store.ts';
import type { Transition, TransitionSql } from './trail.ts';

/** `queued → cancelled`, only while the job is still queued (an agent may claim it meanwhile). */
export const cancelUpdate = (db: QueryCreator<Database>, p: Cancel) =>
  db
    .updateTable('print_jobs')
    .set({ status: 'cancelled', updated_at: p.now })
    .where('id', '=', p.jobId)
    .where('company_id', '=', p.companyId)
    .where('status', '=', 'queued')
    .returningAll();

/** `cancelUpdate`, compiled once (SQLite runs it with `.sync`). */
export const cancelStatement = prepared<Cancel, JobRow>((db, p) => cancelUpdate(db, p));

/** The cancel's row of the trail. */
export const cancelledTransition = (p: Cancel): Transition => ({
  companyId: p.companyId,
  jobId: p.jobId,
  from: 'queued',
  to: 'cancelled',
  agentId: null,
  message: 'cancel',
  at: p.now,
});

/** `cancelledTransition` over the cancelled job's row (PostgreSQL). */
export const cancelledHistory: TransitionSql = {
  from: `'queued'`,
  to: `'cancelled'`,
  agent: 'null',
  message: `'cancel'`,
  at: '"updated_at"',
};
