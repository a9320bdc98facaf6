import type { JobRecord, QueuedJobRecord } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { prepared } from '../../storage/prepared.ts';
import { onlineSince, type Presence } from './presence.ts';

// Compiled once (prepared): every POST /printing/jobs runs it.
const servingAgent = prepared((db, p: { companyId: number; route: string; seenSince: string }) =>
  db
    .selectFrom('print_routes as r')
    .innerJoin('print_agents as a', 'a.id', 'r.agent_id')
    .select('r.id')
    .where('r.company_id', '=', p.companyId)
    .where('r.name', '=', p.route)
    .where('r.enabled', '=', 1)
    .where('a.paused', '=', 0)
    .where('a.last_seen_at', '>=', p.seenSince)
    .limit(1),
);

/**
 * Whether an agent that would print a job of `route` now is there: online, not paused, and
 * serving the route (enabled). One indexed lookup (print_routes by company and name).
 */
export async function routeOnline(
  db: Db,
  companyId: number,
  route: string,
  { now, heartbeatSeconds }: Presence,
): Promise<boolean> {
  const found = await servingAgent(db, {
    companyId,
    route,
    seenSince: onlineSince(now, heartbeatSeconds),
  });
  return found.length > 0;
}

/** A job just queued, with `route_online`: whether an agent is there to print it now. */
export async function withRouteOnline(
  db: Db,
  companyId: number,
  job: JobRecord,
  presence: Presence,
): Promise<QueuedJobRecord> {
  return { ...job, route_online: await routeOnline(db, companyId, job.route, presence) };
}
