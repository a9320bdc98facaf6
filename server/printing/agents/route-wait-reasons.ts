import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import type { JobRecord, PrinterInfo } from '../../../shared/printing.ts';
import { routeWaitReason, type WaitReason } from '../../../shared/wait-reasons.ts';
import type { Db } from '../../storage/db.ts';
import { type Presence, presentAt } from './presence.ts';
import { backupPrintersOf, storedPrinters } from './records.ts';

/** One agent's row for a route, as the reasons need it. */
export interface Server {
  route: string;
  printer: string;
  /** The route's printer profile as stored (JSON), or null: it prints what it is sent. */
  profile: string | null;
  /** The route's backup printers as stored (`print_routes.backup_printers`). */
  backupPrinters: string | null;
  enabled: number;
  paused: number;
  presentUntil: string | null;
  onlineSince: string | null;
  printers: string;
}

/** The columns of a `Server`, from print_routes `r` joined to print_agents `a`. */
export const serverColumns = [
  'r.name as route',
  'r.printer',
  'r.profile',
  'r.backup_printers as backupPrinters',
  'r.enabled',
  'a.paused',
  'a.present_until as presentUntil',
  'a.online_since as onlineSince',
  'a.printers',
] as const;

/** The routes of `companyId` (`r`) joined to their agents (`a`), as `Server` rows. */
export const routeServers = (db: Db, companyId: number) =>
  db
    .selectFrom('print_routes as r')
    .innerJoin('print_agents as a', 'a.id', 'r.agent_id')
    .select(serverColumns)
    .where('r.company_id', '=', companyId);

/**
 * Why the queued jobs of `routes` wait, per route, from what the server knows now: the
 * agents serving each route (online, paused) and their printers as last reported. Computed
 * when jobs are read rather than stored per job, so a printer that stops or comes back
 * costs no write per job waiting: one indexed read of the routes' rows (print_routes by
 * company and name, joined to their agents) per request, whatever the number of jobs.
 * A route missing from the answer has nothing stopping it.
 */
export async function routeWaitReasons(
  db: Db,
  companyId: number,
  routes: readonly string[],
  { now }: Presence,
): Promise<Map<string, WaitReason>> {
  const reasons = new Map<string, WaitReason>();
  const names = [...new Set(routes)];
  if (names.length === 0) return reasons;
  const rows: Server[] = await routeServers(db, companyId).where('r.name', 'in', names).execute();
  const at = presentAt(now);
  for (const route of names) {
    const reason = reasonOf(
      route,
      rows.filter((row) => row.route === route && row.enabled),
      at,
    );
    if (reason !== null) reasons.set(route, reason);
  }
  return reasons;
}

/**
 * An agent is online as its record says (`toAgentRecord`): still present at `at` (the time
 * `presentAt` gives), not signed off.
 */
export const isOnline = (row: Server, at: string) =>
  row.presentUntil !== null && row.presentUntil >= at && row.onlineSince !== null;

/** Whether an agent that would print a job of the route now is there: online, not paused. */
export const anyServingNow = (rows: Server[], at: string): boolean =>
  rows.some((row) => row.enabled && !row.paused && isOnline(row, at));

/**
 * Why a job of `route` waits, from the route's rows (`serving`: its enabled ones): no agent,
 * none online, all paused, or, over the printers of the agents that would take it, the
 * printers' reason when none of them can print (`routeWaitReason`); null when one can.
 */
export function reasonOf(route: string, serving: Server[], at: string): WaitReason | null {
  if (serving.length === 0) {
    return {
      code: 'no_agent_for_route',
      message: `no print agent serves route ${route}`,
    };
  }
  const online = serving.filter((row) => isOnline(row, at));
  if (online.length === 0) {
    return {
      code: 'no_agent_online',
      message: `no print agent serving route ${route} is online`,
    };
  }
  const active = online.filter((row) => !row.paused);
  if (active.length === 0) {
    return { code: 'agent_paused', message: `the print agents serving route ${route} are paused` };
  }
  let first: WaitReason | null = null;
  for (const row of active) {
    const printers: PrinterInfo[] = storedPrinters.parse(JSON.parse(row.printers));
    const route = {
      printer: row.printer,
      backup_printers: backupPrintersOf(row.backupPrinters),
      profile: row.profile === null ? null : (JSON.parse(row.profile) as PrinterProfile),
    };
    const reason = routeWaitReason(route, printers);
    if (reason === null) return null;
    first ??= reason;
  }
  return first;
}

/** Jobs with `wait_reason` set for those queued whose route cannot print now. */
export async function withWaitReasons<T extends JobRecord>(
  db: Db,
  companyId: number,
  jobs: T[],
  presence: Presence,
): Promise<T[]> {
  const queued = jobs.filter((job) => job.status === 'queued').map((job) => job.route);
  if (queued.length === 0) return jobs;
  const reasons = await routeWaitReasons(db, companyId, queued, presence);
  return jobs.map((job) =>
    job.status === 'queued' ? { ...job, wait_reason: reasons.get(job.route) ?? null } : job,
  );
}
