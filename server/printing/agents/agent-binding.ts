import { Forbidden } from '../../domain-errors.ts';
import type { Db } from '../../storage/db.ts';
import { type Caller, readTokenRoutes } from '../../tokens/index.ts';
import type { JobGuard } from '../jobs/read-job.ts';
import type { JobRow } from '../store/queue-store.ts';
import type { AgentRef } from './agent-identities.ts';

/**
 * What a token bound to one print agent may touch beyond acting as it (docs/security.md,
 * "Bound tokens"): the jobs its agent held, and the routes its agent serves or its grant
 * names. A stolen bound token must not widen its own reach: adding a route would let it
 * claim that route's jobs and read their documents.
 */

/** Whether the job was last held by this agent (claimed, printed or failed by it). */
export const heldByAgent = (job: Pick<JobRow, 'agent_id'>, agentUuid: string): boolean =>
  job.agent_id !== null && job.agent_id.toLowerCase() === agentUuid;

/** The route names the token may add to its agent: its enrolment code's, or `--routes`. */
export const grantedRoutes = (db: Db, tokenId: number): Promise<string[]> =>
  readTokenRoutes(db, tokenId);

/**
 * The names among `wanted` that the bound token may not give its agent: neither served by
 * the agent now nor granted to the token. Empty when the replacement may go ahead.
 */
export async function routesBeyondGrant(
  db: Db,
  tokenId: number,
  agent: AgentRef,
  wanted: readonly string[],
): Promise<string[]> {
  const served = await db
    .selectFrom('print_routes')
    .select('name')
    .where('agent_id', '=', agent.rowId)
    .execute();
  const allowed = new Set([
    ...served.map((route) => route.name),
    ...(await grantedRoutes(db, tokenId)),
  ]);
  return [...new Set(wanted)].filter((name) => !allowed.has(name));
}

/**
 * Refuses a job another agent held, for a token bound to one agent: it retries, reprints and
 * reads only the jobs its own agent held (docs/security.md). None for any other token.
 */
export function boundJobGuard(caller: Caller): JobGuard | undefined {
  const bound = caller.agentUuid;
  if (bound === null) return undefined;
  return (job) => {
    if (heldByAgent(job, bound)) return;
    throw new Forbidden(
      `This token is bound to the print agent ${bound} and may only act on the jobs that agent claimed; job ${job.id} is not one of them.`,
    );
  };
}
