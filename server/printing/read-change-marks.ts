import type { Db } from '../storage/db.ts';
import { isOnlineRow } from './agents/records.ts';
import type { PrintingService } from './service.ts';

/**
 * Lines that change whenever the printing the console's live pages show changes: a job's
 * status (the id of the company's newest row of the jobs' trail, as the queue's store keeps
 * it: `PrintQueueStore.newestEvent`), an agent's presence, pause, printers or routes. The
 * company's own rows only (server/console/read-company-version.ts keys them).
 */
export async function readPrintingMarks(
  db: Db,
  companyId: number,
  printing: Pick<PrintingService, 'queue' | 'presence'>,
): Promise<string[]> {
  const lastEvent = await printing.queue.store.newestEvent(db, companyId);
  const presence = printing.presence();
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
    String(lastEvent),
    ...agents.map((a) =>
      [a.uuid, a.name, isOnlineRow(a, presence), a.paused, a.printers, a.routes_version].join(),
    ),
  ];
}
