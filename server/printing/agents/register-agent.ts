import type { RegisterAgentBody } from '../../../shared/printing.ts';
import { Conflict } from '../../domain-errors.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { OutboxDeps } from '../../webhooks/index.ts';
import { afterAgentChange, beforeAgentChange, recordAgentOnline } from './agent-events.ts';
import { findAgentRow } from './agent-identities.ts';
import { presentUntil } from './presence.ts';
import { type AgentRow, justSeen } from './records.ts';

const takenElsewhere = () =>
  new Conflict(
    'This agent UUID is registered to another company; the agent must generate a new UUID.',
  );

/**
 * Idempotent per uuid: creates the agent, or refreshes what it says about itself. It counts
 * as present for `presentSeconds` from now (`agentPresentSeconds`, presence.ts).
 */
export async function registerAgent(
  { storage, outbox }: OutboxDeps,
  db: Db,
  companyId: number,
  input: RegisterAgentBody,
  now: Date,
  presentSeconds: number,
): Promise<{ row: AgentRow; created: boolean }> {
  const stamp = isoNow(now);
  const until = presentUntil(now, presentSeconds);
  return storage.transaction(db, async (trx) => {
    const inserted = await trx
      .insertInto('print_agents')
      .values({
        company_id: companyId,
        uuid: input.uuid.toLowerCase(),
        name: input.name,
        hostname: input.hostname,
        platform: input.platform,
        version: input.version,
        printers: JSON.stringify(input.printers),
        paused: 0,
        last_seen_at: stamp,
        present_until: until,
        online_since: stamp,
        created_at: stamp,
        updated_at: stamp,
      })
      // Two registrations racing (PostgreSQL): the loser updates what the winner wrote.
      .onConflict((oc) => oc.column('uuid').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) {
      await recordAgentOnline(outbox, trx, inserted, justSeen(now));
      return { row: inserted, created: true };
    }
    const existing = await findAgentRow(trx, input.uuid.toLowerCase());
    if (!existing || existing.company_id !== companyId) throw takenElsewhere();
    const ref = { rowId: existing.id, companyId };
    const before = await beforeAgentChange(outbox, trx, ref, stamp, true);
    const row = await trx
      .updateTable('print_agents')
      .set({
        // A name a person chose in the console stays (032_agent_names).
        name: existing.named_in_console === 1 ? existing.name : input.name,
        // A removed agent that registers again is listed again, under its old id.
        removed_at: null,
        hostname: input.hostname,
        platform: input.platform,
        version: input.version,
        printers: JSON.stringify(input.printers),
        last_seen_at: stamp,
        present_until: until,
        updated_at: stamp,
      })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await afterAgentChange(outbox, trx, ref, before, justSeen(now));
    return { row, created: false };
  });
}
