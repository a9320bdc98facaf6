import type { Db } from '../../storage/db.ts';

/** A stored document's bytes (a template job's data: its JSON text), by its id in the company. */
export async function readDocumentContent(
  db: Db,
  companyId: number,
  documentId: number,
): Promise<Uint8Array> {
  const row = await db
    .selectFrom('print_documents')
    .select('content')
    .where('company_id', '=', companyId)
    .where('id', '=', documentId)
    .executeTakeFirstOrThrow();
  return row.content;
}
