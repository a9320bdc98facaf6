import type { Db } from '../../../storage/db.ts';
import type { JobRow, Rendered } from '../queue-store.ts';
import { storeDocument } from './insert-job.ts';

/**
 * A template job rendered at its claim: the bytes made for the claiming agent's printer
 * become the job's document (stored once per company and content, like any job's), so that
 * what the agent prints, what the job shows and what a reprint prints are the same bytes.
 * Only while the agent still holds the job claimed; `undefined` otherwise.
 */
export async function recordRendering(db: Db, rendered: Rendered): Promise<JobRow | undefined> {
  const document = await storeDocument(db, rendered.companyId, rendered.content, rendered.now);
  return db
    .updateTable('print_jobs')
    .set({
      document_id: document.documentId,
      content_type: rendered.contentType,
      size: document.size,
      sha256: document.sha256,
    })
    .where('id', '=', rendered.jobId)
    .where('company_id', '=', rendered.companyId)
    .where('agent_id', '=', rendered.agentUuid)
    .where('status', '=', 'claimed')
    .returningAll()
    .executeTakeFirst();
}

/** The content of the job's document: its bytes, or a template job's data before its claim. */
export async function readContent(
  db: Db,
  companyId: number,
  jobId: number,
): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('print_jobs as j')
    .innerJoin('print_documents as d', 'd.id', 'j.document_id')
    .select('d.content')
    .where('j.company_id', '=', companyId)
    .where('j.id', '=', jobId)
    .executeTakeFirst();
  return row?.content;
}
