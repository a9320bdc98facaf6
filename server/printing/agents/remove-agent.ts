import { Conflict, NotFound } from '../../domain-errors.ts';
import type { Storage } from '../../storage/database.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { Presence } from './presence.ts';
import { isOnlineRow } from './records.ts';

/**
 * Removes an agent that is offline (a PC replaced, a test machine): its routes, its printers'
 * attention rows and the agent go, and every token bound to it is revoked in the same
 * transaction, so the old PC cannot come back with it. Its jobs keep their history (they name
 * the agent by uuid). An online agent is refused: it would register again at its next
 * heartbeat's failure, and a person should stop it first. Returns how many tokens it revoked.
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
      .executeTakeFirst();
    if (!row) throw new NotFound('Print agent');
    if (isOnlineRow(row, presence)) {
      throw new Conflict(
        `The agent ${row.name} is online: stop it on its computer first (or wait until it shows offline), then remove it.`,
      );
    }
    const revoked = await trx
      .updateTable('tokens')
      .set({ revoked_at: isoNow(now) })
      .where('company_id', '=', companyId)
      .where('agent_uuid', '=', uuid)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    await trx.deleteFrom('print_routes').where('agent_id', '=', row.id).execute();
    await trx.deleteFrom('printer_attention').where('agent_id', '=', row.id).execute();
    await trx.deleteFrom('print_agents').where('id', '=', row.id).execute();
    return { tokensRevoked: Number(revoked.numUpdatedRows) };
  });
}
