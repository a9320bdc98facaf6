import { createHmac } from 'node:crypto';
import type { Presence } from '../printing/agents/presence.ts';
import { onlineSince } from '../printing/agents/presence.ts';
import type { Db } from '../storage/db.ts';

/**
 * A short text that changes whenever something the console's live pages show changes:
 * a job's status (the company's newest row of the jobs' trail: one step of the index
 * `print_job_events_company_id`), an agent's name, presence, pause, printers or routes, an
 * agent removed, a webhook endpoint added, changed, removed, or starting or stopping to fail. The company's own rows only: another company's
 * printing never moves it.
 *
 * Opaque, and keyed (an HMAC with the server's key): the trail's ids count every company's
 * job changes, so the newest id in clear, or in a plain hash of rows the company can read
 * anyway, would tell it how busy the other companies were between two of its own changes.
 * Every instance holds the same key, so each computes the same version and a stream resumed
 * on another instance (`Last-Event-ID`) is compared rightly.
 */
export async function readCompanyVersion(
  db: Db,
  companyId: number,
  presence: Presence,
  key: Buffer,
): Promise<string> {
  const lastEvent = await db
    .selectFrom('print_job_events')
    .select('id')
    .where('company_id', '=', companyId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const since = onlineSince(presence.now, presence.heartbeatSeconds);
  const agents = await db
    .selectFrom('print_agents')
    .select([
      'uuid',
      'name',
      'last_seen_at',
      'online_since',
      'paused',
      'printers',
      'routes_version',
    ])
    .where('company_id', '=', companyId)
    .where('removed_at', 'is', null)
    .orderBy('id')
    .execute();
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'events', 'failing_since', 'enabled'])
    .where('company_id', '=', companyId)
    .orderBy('id')
    .execute();
  const shown = [
    lastEvent?.id ?? 0,
    ...agents.map((a) =>
      [
        a.uuid,
        a.name,
        a.last_seen_at !== null && a.online_since !== null && a.last_seen_at >= since,
        a.paused,
        a.printers,
        a.routes_version,
      ].join(),
    ),
    ...endpoints.map((e) => [e.id, e.url, e.events, e.failing_since, e.enabled].join()),
  ].join('\n');
  return createHmac('sha256', key).update(shown).digest('base64url').slice(0, 22);
}
