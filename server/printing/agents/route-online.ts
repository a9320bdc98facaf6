import type { JobRecord, QueuedJobRecord } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { prepared } from '../../storage/prepared.ts';
import { type Presence, presentAt } from './presence.ts';
import { anyServingNow, reasonOf, routeServers, type Server } from './route-wait-reasons.ts';

// Compiled once (prepared): every POST /printing/jobs runs them.
const routeRows = prepared((db, p: { companyId: number; route: string }) =>
  routeServers(db, p.companyId).where('r.name', '=', p.route),
);
const servingNowRow = prepared((db, p: { companyId: number; route: string; at: string }) =>
  routeServers(db, p.companyId)
    .where('r.name', '=', p.route)
    .where('r.enabled', '=', 1)
    .where('a.paused', '=', 0)
    .where('a.present_until', '>=', p.at)
    .where('a.online_since', 'is not', null)
    .limit(1),
);

/**
 * The agents serving `route` that a create needs to answer for: usually one row, an agent
 * online, not paused, serving the route, whose printers can print now and (`enough`) fit the
 * job's options; the answer is then the same as from every row, since one such agent makes
 * the route online with no reason to wait. Otherwise (none, or it cannot print) every row of
 * the route (enabled or not), with their printers, so that the reason and the refusal name
 * all of them. One indexed read (print_routes by company and name) in the usual case, two
 * otherwise; the agents serving one route are a few rows. A create reads it once, for the
 * options check and for `route_online`.
 */
export async function readRouteServers(
  db: Db,
  companyId: number,
  route: string,
  presence: Presence,
  enough: (servers: Server[]) => boolean = () => true,
): Promise<Server[]> {
  const at = presentAt(presence.now);
  const first = await servingNowRow(db, { companyId, route, at });
  if (first.length === 1 && reasonOf(route, first, at) === null && enough(first)) return first;
  return await routeRows(db, { companyId, route });
}

/**
 * Whether an agent that would print a job of `route` now is there (online, not paused, and
 * serving the route, enabled), and why the job waits if nothing can print it now, from the
 * route's rows (`readRouteServers`).
 */
export function routeOnline(
  servers: Server[],
  route: string,
  { now }: Presence,
): Pick<QueuedJobRecord, 'route_online' | 'wait_reason'> {
  const at = presentAt(now);
  const enabled = servers.filter((row) => row.enabled);
  return {
    route_online: anyServingNow(enabled, at),
    wait_reason: reasonOf(route, enabled, at),
  };
}

/**
 * A job just queued, with `route_online` (whether an agent is there to print it now) and,
 * queued, its `wait_reason`, from its route's rows as the create read them.
 */
export function withRouteOnline(
  job: JobRecord,
  servers: Server[],
  presence: Presence,
): QueuedJobRecord {
  const found = routeOnline(servers, job.route, presence);
  return {
    ...job,
    route_online: found.route_online,
    wait_reason: job.status === 'queued' ? found.wait_reason : null,
  };
}
