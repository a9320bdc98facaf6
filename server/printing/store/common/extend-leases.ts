import type { Db } from '../../../storage/db.ts';
import type { LeaseExtension } from '../queue-store.ts';

/**
 * Extends the leases of the jobs the agent still holds. A lease already past its end is lost
 * even before the sweep marks the job failed: it is not extended, and the agent is told to
 * let the job go rather than print it late. Answers the extended ids, in order.
 */
export async function extendLeases(db: Db, request: LeaseExtension): Promise<number[]> {
  if (request.jobIds.length === 0) return [];
  const rows = await db
    .updateTable('print_jobs')
    .set({ lease_expires_at: request.lease })
    .where('company_id', '=', request.companyId)
    .where('agent_id', '=', request.agentUuid)
    .where('status', '=', 'claimed')
    .where('lease_expires_at', '>', request.now)
    .where('id', 'in', request.jobIds)
    .returning('id')
    .execute();
  return rows.map((row) => row.id).sort((a, b) => a - b);
}
