import type { QueryCreator, Updateable } from 'kysely';
import type { Database } from '../../../storage/schema.ts';

/** Which job, and the agent that must hold it. */
interface HeldJob {
  jobId: number;
  companyId: number;
  agentUuid: string;
}

/**
 * An update of a claimed job by the agent that holds it (a confirm, a fail): nothing changes
 * when another agent holds it or it is no longer claimed; the changed row is returned.
 */
export const holderUpdate = (
  db: QueryCreator<Database>,
  p: HeldJob,
  set: Updateable<Database['print_jobs']>,
) =>
  db
    .updateTable('print_jobs')
    .set(set)
    .where('id', '=', p.jobId)
    .where('company_id', '=', p.companyId)
    .where('agent_id', '=', p.agentUuid)
    .where('status', '=', 'claimed')
    .returningAll();
