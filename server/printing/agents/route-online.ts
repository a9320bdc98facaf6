import type { JobRecord, QueuedJobRecord } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { prepared } from '../../storage/prepared.ts';
import { onlineSince, type Presence } from './presence.ts';
import { anyServingNow, reasonOf, type Server, serverColumns } from './route-wait-reasons.ts';

// Compiled once (prepared): every POST /printing/jobs runs it.
const routeRows = prepared((db, p: { companyId: number; route: string }) =>
  db
    .selectFrom('print_routes as r')
    .innerJoin('print_agents as a', 'a.id', 'r.agent_id')
    .select(serverColumns)
    .where('r.company_id', '=', p.companyId)
    .where('r.name', '=', p.route),
);

/**
 * Whether an agent that would print a job of `route` now is there (online, not paused, and
 * serving the route, enabled), and why the job waits if nothing can print it now. One indexed
 * read (print_routes by company and name, with their agents): the agents serving one route
 * are a few rows.
 */
export async function routeOnline(
  db: Db,
  companyId: number,
  route: string,
  { now, heartbeatSeconds }: Presence,
): Promise<Pick<QueuedJobRecord, 'route_online' | 'wait_reason'>> {
  const rows: Server[] = await routeRows(db, { companyId, route });
  const since = onlineSince(now, heartbeatSeconds);
  const enabled = rows.filter((row) => row.enabled);
  return {
    route_online: anyServingNow(enabled, since),
    wait_reason: reasonOf(route, enabled, since),
  };
}

/**
 * A job just queued, with `route_online` (whether an agent is there to print it now) and,
 * queued, its `wait_reason`.
 */
export async function withRouteOnline(
  db: Db,
  companyId: number,
  job: JobRecord,
  presence: Presence,
): Promise<QueuedJobRecord> {
  const found = await routeOnline(db, companyId, job.route, presence);
  return {
    ...job,
    route_online: found.route_online,
    wait_reason: job.status === 'queued' ? found.wait_reason : null,
  };
}
