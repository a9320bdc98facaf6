import type { QueryCreator } from 'kysely';
import { prepared } from '../../../storage/prepared.ts';
import type { Database } from '../../../storage/schema.ts';
import type { ConfirmRequest, JobRow } from '../queue-store.ts';
import { holderUpdate } from './holder-update.ts';
import type { Transition } from './trail.ts';

/** The holder's confirm: `claimed → printed`, only by the agent that holds the job. */
export const confirmUpdate = (db: QueryCreator<Database>, p: ConfirmRequest) =>
  holderUpdate(db, p, {
    status: 'printed',
    printer: p.printer,
    printed_at: p.now,
    lease_expires_at: null,
    updated_at: p.now,
  });

/** The confirm's row of the trail: `printed on PRINTER`, or no message. */
export const printedTransition = (row: JobRow, request: ConfirmRequest): Transition => ({
  companyId: row.company_id,
  jobId: row.id,
  from: 'claimed',
  to: 'printed',
  agentId: request.agentUuid,
  message: request.printer ? `printed on ${request.printer}` : null,
  at: row.updated_at,
});

/** `confirmUpdate`, compiled once: it runs once per printed job. */
export const confirmStatement = prepared<ConfirmRequest, JobRow>((db, p) => confirmUpdate(db, p));
