import type { QueryCreator } from 'kysely';
import { prepared } from '../../../storage/prepared.ts';
import type { Database } from '../../../storage/schema.ts';
import type { FailRequest, JobRow } from '../queue-store.ts';
import { holderUpdate } from './holder-update.ts';
import type { Transition, TransitionSql } from './trail.ts';

/** The holder's `claimed → failed`, with its message and code, only by the agent that holds it. */
export const failUpdate = (db: QueryCreator<Database>, p: FailRequest) =>
  holderUpdate(db, p, {
    status: 'failed',
    error_message: p.message,
    error_code: p.code,
    lease_expires_at: null,
    updated_at: p.now,
  });

/** `failUpdate`, compiled once (SQLite runs it with `.sync`). */
export const failStatement = prepared<FailRequest, JobRow>((db, p) => failUpdate(db, p));

/** The fail's row of the trail: the holder, and the error's message. */
export const failedTransition = (row: JobRow, request: FailRequest): Transition => ({
  companyId: row.company_id,
  jobId: row.id,
  from: 'claimed',
  to: 'failed',
  agentId: request.agentUuid,
  message: request.message,
  at: row.updated_at,
});

/** `failedTransition` over the failed job's row, for a statement's history CTE (PostgreSQL). */
export const failedHistory: TransitionSql = {
  from: `'claimed'`,
  to: `'failed'`,
  agent: '"agent_id"',
  message: '"error_message"',
  at: '"updated_at"',
};
