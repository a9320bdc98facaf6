import type { OverviewRecord } from '../../shared/console.ts';
import { printerInfoSchema } from '../../shared/printing.ts';
import { printerWaitReason } from '../../shared/wait-reasons.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import type { Presence } from './agents/presence.ts';
import { isOnlineRow } from './agents/records.ts';
import { routeWaitReasons } from './agents/route-wait-reasons.ts';

/** Reasons that need nobody: the printer is fine. */
const harmless = new Set(['none', 'none-report', 'paused']);

type CannotPrint = OverviewRecord['cannot_print'][number];

/** The console's overview as printing sees it: all of it but the failing webhooks. */
export type PrintingOverview = Omit<OverviewRecord, 'failing_webhooks'>;

/**
 * Printing's part of the console's overview page: what cannot print now (most serious
 * first), agents online and offline, printers that need someone (stopped, offline, or with
 * a reason that is not harmless), and the company's jobs of the last 24 hours by status.
 */
export async function readPrintingOverview(
  db: Db,
  companyId: number,
  presence: Presence,
): Promise<PrintingOverview> {
  const agents = await db
    .selectFrom('print_agents')
    .select([
      'uuid',
      'name',
      'hostname',
      'last_seen_at',
      'present_until',
      'online_since',
      'printers',
    ])
    .where('company_id', '=', companyId)
    .where('removed_at', 'is', null)
    .orderBy('name')
    .execute();
  let online = 0;
  const attention: OverviewRecord['printers_needing_attention'] = [];
  const stoppedPrinters: CannotPrint[] = [];
  const offlineAgents: CannotPrint[] = [];
  const serving = await agentsServingRoutes(db, companyId);
  for (const agent of agents) {
    const isOnline = isOnlineRow(agent, presence);
    if (isOnline) online++;
    const name = agent.name || agent.hostname;
    if (!isOnline) {
      // Its printers are as it last saw them (unknown now); what matters is what it serves.
      const routes = serving.get(agent.uuid);
      if (routes !== undefined) {
        offlineAgents.push({
          ...nothing,
          kind: 'agent',
          code: 'agent_offline',
          message: `print agent ${name} is offline; it serves ${routeList(routes)}`,
          agent_id: agent.uuid,
          agent_name: name,
          since: agent.last_seen_at,
        });
      }
      continue;
    }
    const printers = printerInfoSchema.array().safeParse(JSON.parse(agent.printers));
    for (const printer of printers.success ? printers.data : []) {
      const reason = printerWaitReason(printer);
      if (reason !== null) {
        stoppedPrinters.push({
          ...nothing,
          kind: 'printer',
          code: reason.code,
          message: `${reason.message} (on ${name})`,
          agent_id: agent.uuid,
          agent_name: name,
          printer: printer.name,
        });
      }
      const reasons = printer.reasons.filter((reason) => !harmless.has(reason));
      if (printer.state === 'stopped' || printer.state === 'offline' || reasons.length > 0) {
        attention.push({
          agent_id: agent.uuid,
          agent_name: agent.name || agent.hostname,
          printer: printer.name,
          state: printer.state,
          reasons,
        });
      }
    }
  }
  const waitingRoutes = await readWaitingRoutes(db, companyId, presence);
  return {
    cannot_print: [...waitingRoutes, ...stoppedPrinters, ...offlineAgents],
    agents: { online, offline: agents.length - online },
    printers_needing_attention: attention,
    jobs_last_24h: await countLastDay(db, companyId, presence.now),
  };
}

/** The company's jobs created in the last 24 hours, by status. */
async function countLastDay(
  db: Db,
  companyId: number,
  now: Date,
): Promise<PrintingOverview['jobs_last_24h']> {
  const dayAgo = isoNow(new Date(now.getTime() - 86_400_000));
  const counts = await db
    .selectFrom('print_jobs')
    .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
    .where('company_id', '=', companyId)
    .where('created_at', '>=', dayAgo)
    .groupBy('status')
    .execute();
  const count = (status: string) => Number(counts.find((c) => c.status === status)?.count ?? 0);
  return { queued: count('queued'), printed: count('printed'), failed: count('failed') };
}

const nothing = {
  route: null,
  agent_id: null,
  agent_name: null,
  printer: null,
  jobs_waiting: null,
  since: null,
} as const;

const routeList = (routes: string[]) =>
  routes.length === 1 ? `route ${routes[0]}` : `routes ${routes.join(', ')}`;

/** Per agent uuid, the names of the routes it serves (enabled), in name order. */
async function agentsServingRoutes(db: Db, companyId: number): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('print_routes as r')
    .innerJoin('print_agents as a', 'a.id', 'r.agent_id')
    .select(['a.uuid', 'r.name'])
    .where('r.company_id', '=', companyId)
    .where('r.enabled', '=', 1)
    .orderBy('r.name')
    .execute();
  const byAgent = new Map<string, string[]>();
  for (const row of rows) {
    const routes = byAgent.get(row.uuid) ?? [];
    if (!routes.includes(row.name)) routes.push(row.name);
    byAgent.set(row.uuid, routes);
  }
  return byAgent;
}

/**
 * The routes with queued jobs that nothing can print now, with why (the jobs' own
 * `wait_reason`) and since when (the oldest wait: a queued job's `updated_at` is when it
 * was queued), the most jobs first.
 */
async function readWaitingRoutes(
  db: Db,
  companyId: number,
  presence: Presence,
): Promise<CannotPrint[]> {
  const rows = await db
    .selectFrom('print_jobs')
    .select([
      'route',
      (eb) => eb.fn.countAll<number>().as('count'),
      (eb) => eb.fn.min<string>('updated_at').as('since'),
    ])
    .where('company_id', '=', companyId)
    .where('status', '=', 'queued')
    .groupBy('route')
    .execute();
  const reasons = await routeWaitReasons(
    db,
    companyId,
    rows.map((row) => row.route),
    presence,
  );
  const waiting: CannotPrint[] = [];
  for (const row of rows) {
    const reason = reasons.get(row.route);
    if (reason === undefined) continue;
    const count = Number(row.count);
    waiting.push({
      ...nothing,
      kind: 'route',
      code: reason.code,
      message: `${count} job${count === 1 ? '' : 's'} waiting on route ${row.route}: ${reason.message}`,
      route: row.route,
      jobs_waiting: count,
      since: row.since,
    });
  }
  return waiting.sort(
    (a, b) => (b.jobs_waiting ?? 0) - (a.jobs_waiting ?? 0) || a.message.localeCompare(b.message),
  );
}
