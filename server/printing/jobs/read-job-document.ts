import { NotFound } from '../../domain-errors.ts';
import type { Db } from '../../storage/db.ts';

/** A job's document, as it will be printed (the console shows it), of the company's job only. */
export async function readJobDocument(
  db: Db,
  companyId: number,
  jobId: number,
): Promise<{ contentType: string; content: Buffer }> {
  const row = await db
    .selectFrom('print_jobs')
    .innerJoin('print_documents', 'print_documents.id', 'print_jobs.document_id')
    .select(['print_jobs.content_type', 'print_documents.content'])
    .where('print_jobs.company_id', '=', companyId)
    .where('print_jobs.id', '=', jobId)
    .executeTakeFirst();
  if (!row) throw new NotFound('Print job');
  return { contentType: row.content_type, content: Buffer.from(row.content) };
}
