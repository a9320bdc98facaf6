import { type QueryCreator, sql } from 'kysely';
import { prepared } from '../storage/prepared.ts';
import type { Database } from '../storage/schema.ts';
import type { JobRow } from './jobs.ts';

export interface ConfirmValues {
  jobId: number;
  companyId: number;
  agentUuid: string;
  printer: string | null;
  now: string;
}

/** The holder's confirm: `claimed → printed`, only by the agent that holds the job. */
export const confirmUpdate = (db: QueryCreator<Database>, p: ConfirmValues) =>
  db
    .updateTable('print_jobs')
    .set({
      status: 'printed',
      printer: p.printer,
      printed_at: p.now,
      lease_expires_at: null,
      updated_at: p.now,
    })
    .where('id', '=', p.jobId)
    .where('company_id', '=', p.companyId)
    .where('agent_id', '=', p.agentUuid)
    .where('status', '=', 'claimed')
    .returningAll();

/**
 * PostgreSQL, when no webhook endpoint of the company takes `print_job.printed` (so no
 * outbox row is due): the holder's confirm and its event in one statement, run on its own
 * (autocommit: one round trip instead of BEGIN, UPDATE, INSERT, COMMIT). The event is made
 * from the row the UPDATE returned, so it is written exactly when the job changed; a confirm
 * that changes nothing (not the holder, a repeat) returns no row, and the caller's
 * transaction path reads the job to say why.
 */
export const confirmInOneStatement = prepared<ConfirmValues, JobRow>((db, p) =>
  db
    .with('confirmed', (qc) => confirmUpdate(qc, p))
    .with('event', (qc) =>
      qc
        .insertInto('print_job_events')
        .columns(['company_id', 'job_id', 'from_status', 'to_status', 'agent_id', 'message', 'at'])
        .expression((eb) =>
          eb.selectFrom('confirmed').select([
            'confirmed.company_id',
            'confirmed.id',
            sql.lit('claimed').as('from_status'),
            sql.lit('printed').as('to_status'),
            'confirmed.agent_id',
            // The same message as the transaction path: `printed on PRINTER`, or none.
            sql<string | null>`'printed on ' || nullif(confirmed.printer, '')`.as('message'),
            'confirmed.updated_at',
          ]),
        ),
    )
    .selectFrom('confirmed')
    .selectAll('confirmed'),
);
