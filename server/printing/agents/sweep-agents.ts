import type { Storage } from '../../storage/database.ts';
import { isoNow } from '../../time.ts';
import { recordEvent } from '../../webhooks/outbox.ts';
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
  storage: Storage,
  now: Date,
  heartbeatSeconds: number,
): Promise<string[]> {
  const cutoff = onlineSince(now, heartbeatSeconds);
  const stamp = isoNow(now);
  return storage.transaction(async (trx) => {
    const silent = await trx
      .updateTable('print_agents')
      .set({ online_since: null })
      .where('online_since', 'is not', null)
      .where('last_seen_at', '<', cutoff)
      .returningAll()
      .execute();
    for (const row of silent) {
      await recordEvent(storage, trx, row.company_id, 'agent.offline', stamp, () =>
        toAgentRecord(row, { now, heartbeatSeconds }),
      );
    }
    return silent.map((row) => row.uuid).sort();
  });
}
