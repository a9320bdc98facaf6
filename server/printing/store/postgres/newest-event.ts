import type { Db } from '../../../storage/db.ts';
import { prepared } from '../../../storage/prepared.ts';

const newestRow = prepared((db, p: { companyId: number }) =>
  db
    .selectFrom('print_job_events')
    .select('id')
    .where('company_id', '=', p.companyId)
    .orderBy('id', 'desc')
    .limit(1),
);

/**
 * The id of a company's newest job event (0: none): one step of the index of events by
 * company (`print_job_events_company_id`, migration 026). PostgreSQL keeps that index: its
 * instances commit events out of id order, so the newest cannot be followed from the ids
 * written since, as SQLite's store does (`../sqlite/newest-events.ts`).
 */
export async function newestEvent(db: Db, companyId: number): Promise<number> {
  const [row] = await newestRow(db, { companyId });
  return row?.id ?? 0;
}
