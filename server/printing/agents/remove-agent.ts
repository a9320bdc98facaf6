import { Conflict, NotFound } from '../../domain-errors.ts';
import type { Storage } from '../../storage/database.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import { revokeAgentTokens } from '../../tokens/index.ts';
import type { Presence } from './presence.ts';
import { isOnlineRow } from './records.ts';

/**
 * Removes an agent that is offline (a PC replaced, a test machine): its routes and its
 * printers' attention rows go, every token bound to it is revoked in the same transaction (so
 * the old PC cannot come back with it), and it is no longer listed. Its jobs keep their
 * history (they name the agent by uuid). The row itself stays, hidden (`removed_at`), so the
 * agent keeps its id: every instance caches an agent's uuid → row id (agent-identities.ts),
 * and an agent that comes back with a company-wide token registers onto the same row and is
 * listed again. An online agent is refused: a person stops it first. Returns how many tokens
 * it revoked.
 */
export async function removeAgent(
  storage: Storage,
  db: Db,
  companyId: number,
  uuid: string,
  presence: Presence,
  now: Date,
): Promise<{ tokensRevoked: number }> {
  return storage.transaction(db, async (trx) => {
    const row = await trx
      .selectFrom('print_agents')
      .selectAll()
      .where('uuid', '=', uuid)
      .where('company_id', '=', companyId)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    if (!row) throw new NotFound('Print agent');
    if (isOnlineRow(row, presence)) {
      throw new Conflict(
        `The agent ${row.name} is online: stop it on its computer first (or wait until it shows offline), then remove it.`,
      );
    }
    const stamp = isoNow(now);
    const { revoked } = await revokeAgentTokens(trx, companyId, uuid, now);
    await trx.deleteFrom('print_routes').where('agent_id', '=', row.id).execute();
    await trx.deleteFrom('printer_attention').where('agent_id', '=', row.id).execute();
    await trx
      .updateTable('print_agents')
      .set((eb) => ({
        removed_at: stamp,
        online_since: null,
        updated_at: stamp,
        routes_version: eb('routes_version', '+', 1),
      }))
      .where('id', '=', row.id)
      .execute();
    return { tokensRevoked: revoked };
  });
}
