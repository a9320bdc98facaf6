import type { HeartbeatBody, HeartbeatResult } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { PrintQueue } from '../jobs/print-queue.ts';
import { afterAgentChange, beforeAgentChange } from './agent-events.ts';
import type { AgentRef } from './agent-identities.ts';
import { presentUntil } from './presence.ts';
import { justSeen } from './records.ts';

/**
 * Presence (present for `presentSeconds` from now: presence.ts), printers and paused flag;
 * extends the leases of the jobs the agent still holds.
 */
export async function recordHeartbeat(
  { storage, store, outbox }: PrintQueue,
  db: Db,
  agent: AgentRef,
  input: HeartbeatBody,
  now: Date,
  { leaseSeconds, presentSeconds }: { leaseSeconds: number; presentSeconds: number },
): Promise<HeartbeatResult> {
  const stamp = isoNow(now);
  const until = presentUntil(now, presentSeconds);
  const lease = isoNow(new Date(now.getTime() + leaseSeconds * 1000));
  return storage.transaction(db, async (trx) => {
    const before = await beforeAgentChange(outbox, trx, agent, stamp, input.printers !== undefined);
    await trx
      .updateTable('print_agents')
      .set({
        last_seen_at: stamp,
        present_until: until,
        ...(input.printers !== undefined ? { printers: JSON.stringify(input.printers) } : {}),
        ...(input.paused !== undefined ? { paused: input.paused ? 1 : 0 } : {}),
        // Presence alone is not a change of the record; what the agent says about itself is.
        ...(input.printers !== undefined || input.paused !== undefined
          ? { updated_at: stamp }
          : {}),
      })
      .where('id', '=', agent.rowId)
      .execute();
    await afterAgentChange(outbox, trx, agent, before, justSeen(now));
    const held = [...new Set(input.held_job_ids)];
    const extended = await store.extendLeases(trx, {
      companyId: agent.companyId,
      agentUuid: agent.uuid,
      jobIds: held,
      lease,
      now: stamp,
    });
    const kept = new Set(extended);
    const { routes_version } = await trx
      .selectFrom('print_agents')
      .select('routes_version')
      .where('id', '=', agent.rowId)
      .executeTakeFirstOrThrow();
    return {
      server_time: stamp,
      extended_job_ids: extended,
      released_job_ids: held.filter((id) => !kept.has(id)).sort((a, b) => a - b),
      lease_expires_at: extended.length > 0 ? lease : null,
      routes_version,
    };
  });
}
