import type { Db } from '../storage/db.ts';
import type { Presence } from './agents/presence.ts';
import { isOnlineRow } from './agents/records.ts';

/**
 * Lines that change whenever the printing the console's live pages show changes: a job's
 * status (the company's newest row of the jobs' trail: one step of the index
 * `print_job_events_company_id`), an agent's presence, pause, printers or routes. The
 * company's own rows only (server/console/read-company-version.ts keys them).
 */
export async function readPrintingMarks(
  db: Db,
  companyId: number,
  presence: Presence,
): Promise<string[]> {
  const lastEvent = await db
    .selectFrom('print_job_events')
    .select('id')
    .where('company_id', '=', companyId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const agents = await db
    .selectFrom('print_agents')
    .select([
      'uuid',
      'name',
      'present_until',
      'online_since',
      'paused',
      'printers',
      'routes_version',
    ])
    .where('company_id', '=', companyId)
    .where('removed_at', 'is', null)
    .orderBy('id')
    .execute();
  return [
    String(lastEvent?.id ?? 0),
    ...agents.map((a) =>
      [a.uuid, a.name, isOnlineRow(a, presence), a.paused, a.printers, a.routes_version].join(),
    ),
  ];
}
