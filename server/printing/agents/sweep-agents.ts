import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { OutboxDeps } from '../../webhooks/index.ts';
import { onlineSince } from './presence.ts';
import { toAgentRecord } from './records.ts';

/**
 * Agents that were online and sent no heartbeat for the online interval (`onlineSince`) are
 * offline from now: one UPDATE ... RETURNING over the partial index of online agents, and
 * an `agent.offline` event for each, in one transaction. On PostgreSQL two instances
 * sweeping at once announce each agent once: the second UPDATE waits for the first's row
 * locks, then finds them no longer online. Answers the agents' UUIDs.
 */
export async function sweepAgents(
  { storage, outbox }: OutboxDeps,
  db: Db,
  now: Date,
  heartbeatSeconds: number,
): Promise<string[]> {
  const cutoff = onlineSince(now, heartbeatSeconds);
  const stamp = isoNow(now);
  return storage.transaction(db, async (trx) => {
    const silent = await trx
      .updateTable('print_agents')
      .set({ online_since: null })
      .where('online_since', 'is not', null)
      .where('last_seen_at', '<', cutoff)
      .returningAll()
      .execute();
    for (const row of silent) {
      await outbox.record(trx, {
        companyId: row.company_id,
        type: 'agent.offline',
        at: stamp,
        data: () => toAgentRecord(row, { now, heartbeatSeconds }),
      });
    }
    return silent.map((row) => row.uuid).sort();
  });
}
