import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { OutboxDeps } from '../../webhooks/index.ts';
import { presentAt } from './presence.ts';
import { toAgentRecord } from './records.ts';

/**
 * Agents that were online and are no longer present (no heartbeat, or poll of a member
 * printer, within their online interval: `present_until`, presence.ts) are
 * offline from now: one UPDATE ... RETURNING over the partial index of online agents, and
 * an `agent.offline` event for each, in one transaction. On PostgreSQL two instances
 * sweeping at once announce each agent once: the second UPDATE waits for the first's row
 * locks, then finds them no longer online. Answers the agents' UUIDs.
 */
export async function sweepAgents(
  { storage, outbox }: OutboxDeps,
  db: Db,
  now: Date,
): Promise<string[]> {
  const at = presentAt(now);
  const stamp = isoNow(now);
  return storage.transaction(db, async (trx) => {
    const silent = await trx
      .updateTable('print_agents')
      .set({ online_since: null })
      .where('online_since', 'is not', null)
      .where('present_until', '<', at)
      .returningAll()
      .execute();
    for (const row of silent) {
      await outbox.record(trx, {
        companyId: row.company_id,
        type: 'agent.offline',
        at: stamp,
        data: () => toAgentRecord(row, { now }),
      });
    }
    return silent.map((row) => row.uuid).sort();
  });
}
