import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { OutboxDeps } from '../../webhooks/index.ts';
import type { AgentRef } from './agent-identities.ts';
import type { Presence } from './presence.ts';
import { toAgentRecord } from './records.ts';

/**
 * An agent stopped cleanly (SIGTERM, the tray's Quit) says so: it is offline from now, not
 * one online interval later. `online_since` cleared, as the sweep does for a silent agent,
 * and `agent.offline` once if it was online, in one transaction; its next registration or
 * heartbeat brings it online again. `last_seen_at` stays: when it was last heard.
 */
export async function signOff(
  { storage, outbox }: OutboxDeps,
  db: Db,
  agent: AgentRef,
  presence: Presence,
): Promise<void> {
  const stamp = isoNow(presence.now);
  await storage.transaction(db, async (trx) => {
    const row = await trx
      .updateTable('print_agents')
      .set({ online_since: null })
      .where('id', '=', agent.rowId)
      .where('online_since', 'is not', null)
      .returningAll()
      .executeTakeFirst();
    if (!row) return;
    await outbox.record(trx, {
      companyId: row.company_id,
      type: 'agent.offline',
      at: stamp,
      data: () => toAgentRecord(row, presence),
    });
  });
}
