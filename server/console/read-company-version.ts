import { hash } from 'node:crypto';
import type { Presence } from '../printing/agents/presence.ts';
import { onlineSince } from '../printing/agents/presence.ts';
import type { Db } from '../storage/db.ts';

/**
 * A short text that changes whenever something the console's live pages show changes:
 * a job's status (the newest row of the jobs' trail, read by primary key: one index
 * step), an agent's presence, pause, printers or routes, a webhook endpoint starting or stopping
 * to fail. The jobs' part is global, not per company: another company's change only makes
 * a page read again, it never hides one of this company's.
 */
export async function readCompanyVersion(
  db: Db,
  companyId: number,
  presence: Presence,
): Promise<string> {
  const lastEvent = await db
    .selectFrom('print_job_events')
    .select('id')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const since = onlineSince(presence.now, presence.heartbeatSeconds);
  const agents = await db
    .selectFrom('print_agents')
    .select(['uuid', 'last_seen_at', 'online_since', 'paused', 'printers', 'routes_version'])
    .where('company_id', '=', companyId)
    .orderBy('id')
    .execute();
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'failing_since', 'enabled'])
    .where('company_id', '=', companyId)
    .orderBy('id')
    .execute();
  const shown = [
    ...agents.map((a) =>
      [
        a.uuid,
        a.last_seen_at !== null && a.online_since !== null && a.last_seen_at >= since,
        a.paused,
        a.printers,
        a.routes_version,
      ].join(),
    ),
    ...endpoints.map((e) => [e.id, e.failing_since, e.enabled].join()),
  ].join('\n');
  const digest = hash('sha256', shown, 'base64url').slice(0, 12);
  return `${lastEvent?.id ?? 0}.${digest}`;
}
