import type { OverviewRecord } from '../../shared/console.ts';
import { type Presence, readPrintingOverview } from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { listFailingEndpoints } from '../webhooks/index.ts';

/**
 * The overview page in one answer: printing's part (what cannot print now, agents,
 * printers that need someone, the last 24 hours' jobs) and the failing webhook endpoints.
 */
export async function readOverview(
  db: Db,
  companyId: number,
  presence: Presence,
): Promise<OverviewRecord> {
  return {
    ...(await readPrintingOverview(db, companyId, presence)),
    failing_webhooks: await listFailingEndpoints(db, companyId),
  };
}
