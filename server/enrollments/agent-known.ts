import type { Db } from '../storage/db.ts';

/**
 * Whether the company already knows an agent by this uuid: registered (`print_agents`), or
 * bound to one of its tokens that is not revoked (enrolled, not registered yet). Such an
 * agent has routes, history, reprints or queued jobs, or a token of its own: an ordinary
 * enrolment code must not hand a new token for it to whoever redeems the code with its uuid
 * (uuids are on every job record). Only a code made to re-enrol it may.
 */
export async function agentKnown(db: Db, companyId: number, uuid: string): Promise<boolean> {
  const registered = await db
    .selectFrom('print_agents')
    .select('id')
    .where('uuid', '=', uuid)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  if (registered) return true;
  const bound = await db
    .selectFrom('tokens')
    .select('id')
    .where('agent_uuid', '=', uuid)
    .where('company_id', '=', companyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return bound !== undefined;
}
