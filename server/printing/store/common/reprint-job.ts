import type { Db } from '../../../storage/db.ts';
import type { JobRow, Reprint } from '../queue-store.ts';
import { inTransactionUnit } from './change-unit.ts';
import { insertQueuedJob } from './insert-job.ts';
import type { StoreContext } from './store-context.ts';

/** A reprint: a new queued job of the original's document, its first event naming the original. */
export function reprintJob(
  context: StoreContext,
  db: Db,
  { original, createdAt, expiresAt }: Reprint,
): Promise<JobRow> {
  return inTransactionUnit(context, db, async (trx) => {
    const row = await insertQueuedJob(
      trx,
      {
        companyId: original.company_id,
        document: {
          documentId: original.document_id,
          sha256: original.sha256,
          size: Number(original.size),
        },
        route: original.route,
        title: original.title,
        contentType: original.content_type,
        copies: original.copies,
        priority: original.priority,
        options: original.options,
        reprintOf: original.id,
        createdAt,
        expiresAt,
      },
      `reprint of job ${original.id}`,
    );
    return { result: row, changes: [{ kind: 'created', row }] };
  });
}
