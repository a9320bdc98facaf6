import type { QueryCreator } from 'kysely';
import type { Database } from '../../../storage/schema.ts';
import type { ConfirmRequest } from '../queue-store.ts';

/** The holder's confirm: `claimed → printed`, only by the agent that holds the job. */
export const confirmUpdate = (db: QueryCreator<Database>, p: ConfirmRequest) =>
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

/** The confirm's message in the trail: `printed on PRINTER`, or none. */
export const printedMessage = (printer: string | null) =>
  printer ? `printed on ${printer}` : null;
