import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';

/** The ids of the company's tokens bound to this agent (its uuid) and not revoked. */
export async function agentTokenIds(db: Db, companyId: number, uuid: string): Promise<number[]> {
  const rows = await db
    .selectFrom('tokens')
    .select('id')
    .where('agent_uuid', '=', uuid)
    .where('company_id', '=', companyId)
    .where('revoked_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Revokes the company's tokens bound to this agent and answers how many there were and the
 * routes they granted (each once). The server's token cache notices the write
 * (authenticate.ts).
 */
export async function revokeAgentTokens(
  db: Db,
  companyId: number,
  uuid: string,
  now: Date,
): Promise<{ revoked: number; routes: string[] }> {
  const revoked = await db
    .updateTable('tokens')
    .set({ revoked_at: isoNow(now) })
    .where('company_id', '=', companyId)
    .where('agent_uuid', '=', uuid)
    .where('revoked_at', 'is', null)
    .returning('routes')
    .execute();
  const routes = revoked.flatMap((row) => (row.routes ? (JSON.parse(row.routes) as string[]) : []));
  return { revoked: revoked.length, routes: [...new Set(routes)] };
}

/** The route names a token may add to its agent: its enrolment code's, or `--routes`. */
export async function readTokenRoutes(db: Db, tokenId: number): Promise<string[]> {
  const row = await db
    .selectFrom('tokens')
    .select('routes')
    .where('id', '=', tokenId)
    .executeTakeFirst();
  return row?.routes ? (JSON.parse(row.routes) as string[]) : [];
}
