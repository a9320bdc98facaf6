import { findAgentRow } from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { agentTokenIds } from '../tokens/index.ts';

/**
 * Whether the company already knows an agent by this uuid: registered (`print_agents`, not
 * removed in the console), or
 * bound to one of its tokens that is not revoked (enrolled, not registered yet). Such an
 * agent has routes, history, reprints or queued jobs, or a token of its own: an ordinary
 * enrolment code must not hand a new token for it to whoever redeems the code with its uuid
 * (uuids are on every job record). Only a code made to re-enrol it may.
 *
 * `retryOf`: tokens this enrolment code itself issued to the uuid do not count, as long as
 * the agent has not registered: that is the agent trading the code again because the answer
 * to its first try was lost on the way (agent/core/enrollment.ts retries until it has one).
 */
export async function agentKnown(
  db: Db,
  companyId: number,
  uuid: string,
  retryOf?: number,
): Promise<boolean> {
  const registered = await findAgentRow(db, uuid);
  // A removed agent (its tokens revoked) is enrolled again like a new one.
  if (registered?.company_id === companyId && registered.removed_at === null) return true;
  const bound = await agentTokenIds(db, companyId, uuid);
  if (bound.length === 0 || retryOf === undefined) return bound.length > 0;
  const issuedByRetry = await db
    .selectFrom('print_enrollment_agents')
    .select('token_id')
    .where('enrollment_id', '=', retryOf)
    .where('agent_uuid', '=', uuid)
    .execute();
  const own = new Set(issuedByRetry.map((row) => row.token_id));
  return bound.some((id) => !own.has(id));
}
