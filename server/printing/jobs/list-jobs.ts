import type { HistoryQuery, JobRecord } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import type { PrintQueueStore } from '../store/queue-store.ts';
import { toJobRecord } from './records.ts';

/** The company's jobs (`GET /printing/history`): newest first; `since` compares with the creation time. */
export async function listJobs(
  store: PrintQueueStore,
  db: Db,
  companyId: number,
  query: HistoryQuery,
): Promise<{ rows: JobRecord[]; total: number }> {
  const { rows, total } = await store.list(db, companyId, query);
  return { rows: rows.map(toJobRecord), total };
}
