import type { OverviewRecord } from '../../shared/console.ts';
import { printerInfoSchema } from '../../shared/printing.ts';
import { onlineSince, type Presence } from '../printing/agents/presence.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';

/** Reasons that need nobody: the printer is fine. */
const harmless = new Set(['none', 'none-report', 'paused']);

/**
 * The overview page in one answer: agents online and offline, printers that need
 * someone (stopped, offline, or with a reason that is not harmless), the company's jobs
 * of the last 24 hours by status, and webhook endpoints that are failing.
 */
export async function readOverview(
  db: Db,
  companyId: number,
  presence: Presence,
): Promise<OverviewRecord> {
  const since = onlineSince(presence.now, presence.heartbeatSeconds);
  const agents = await db
    .selectFrom('print_agents')
    .select(['uuid', 'name', 'hostname', 'last_seen_at', 'online_since', 'printers'])
    .where('company_id', '=', companyId)
    .orderBy('name')
    .execute();
  let online = 0;
  const attention: OverviewRecord['printers_needing_attention'] = [];
  for (const agent of agents) {
    const isOnline =
      agent.last_seen_at !== null && agent.online_since !== null && agent.last_seen_at >= since;
    if (isOnline) online++;
    else continue; // an offline agent's printers are as it last saw them: not news
    const printers = printerInfoSchema.array().safeParse(JSON.parse(agent.printers));
    for (const printer of printers.success ? printers.data : []) {
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
  const dayAgo = isoNow(new Date(presence.now.getTime() - 86_400_000));
  const counts = await db
    .selectFrom('print_jobs')
    .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
    .where('company_id', '=', companyId)
    .where('created_at', '>=', dayAgo)
    .groupBy('status')
    .execute();
  const count = (status: string) => Number(counts.find((c) => c.status === status)?.count ?? 0);
  const failing = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'failing_since'])
    .where('company_id', '=', companyId)
    .where('failing_since', 'is not', null)
    .orderBy('id')
    .execute();
  return {
    agents: { online, offline: agents.length - online },
    printers_needing_attention: attention,
    jobs_last_24h: { queued: count('queued'), printed: count('printed'), failed: count('failed') },
    failing_webhooks: failing.map((e) => ({
      id: e.id,
      url: e.url,
      failing_since: e.failing_since!,
    })),
  };
}
