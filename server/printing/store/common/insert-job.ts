import { hash } from 'node:crypto';
import type { Db } from '../../../storage/db.ts';
import { prepared } from '../../../storage/prepared.ts';
import type { JobRow } from '../queue-store.ts';
import { transitionStatement, writeTrail } from './trail.ts';

// Compiled once (prepared): every job created runs these, and building a Kysely insert
// costs more than SQLite takes to run it.
const insertDocument = prepared(
  (
    db,
    p: { companyId: number; sha256: string; size: number; content: Buffer; createdAt: string },
  ) =>
    db
      .insertInto('print_documents')
      .values({
        company_id: p.companyId,
        sha256: p.sha256,
        size: p.size,
        content: p.content,
        created_at: p.createdAt,
      })
      .onConflict((oc) => oc.columns(['company_id', 'sha256']).doNothing())
      .returning('id'),
);

const documentBySha256 = prepared((db, p: { companyId: number; sha256: string }) =>
  db
    .selectFrom('print_documents')
    .select('id')
    .where('company_id', '=', p.companyId)
    .where('sha256', '=', p.sha256),
);

/** A stored document, as a job refers to it. */
export interface StoredDocument {
  documentId: number;
  sha256: string;
  size: number;
}

/**
 * Stores the content once per company (by sha256) and returns its row id: the insert gives
 * it back for new content (the usual case, one statement); content stored before is read.
 */
export async function storeDocument(
  db: Db,
  companyId: number,
  content: Buffer,
  stamp: string,
): Promise<StoredDocument> {
  const sha256 = hash('sha256', content, 'hex');
  const [inserted] = await insertDocument(db, {
    companyId,
    sha256,
    size: content.length,
    content,
    createdAt: stamp,
  });
  const row = inserted ?? (await documentBySha256(db, { companyId, sha256 }))[0];
  if (!row) throw new Error('the stored document was not found after its insert');
  return { documentId: row.id, sha256, size: content.length };
}

/** `storeDocument`, synchronously, in SQLite's group commit (`../common/change-unit.ts`). */
export function storeDocumentNow(
  db: Db,
  companyId: number,
  content: Buffer,
  stamp: string,
): StoredDocument {
  const sha256 = hash('sha256', content, 'hex');
  const size = content.length;
  const [inserted] = insertDocument.sync(db, {
    companyId,
    sha256,
    size,
    content,
    createdAt: stamp,
  });
  const row = inserted ?? documentBySha256.sync(db, { companyId, sha256 })[0];
  if (!row) throw new Error('the stored document was not found after its insert');
  return { documentId: row.id, sha256, size };
}

/** A queued job's columns, as `insertQueuedJob` binds them. */
export interface QueuedJobValues {
  companyId: number;
  document: StoredDocument;
  route: string;
  title: string | null;
  contentType: JobRow['content_type'];
  copies: number;
  priority: number;
  /** The print options as JSON text. */
  options: string;
  reprintOf: number | null;
  createdAt: string;
  expiresAt: string | null;
}

type JobColumns = Omit<QueuedJobValues, 'document'> & {
  documentId: number;
  size: number;
  sha256: string;
};

const insertJobRow = prepared((db, p: JobColumns) =>
  db
    .insertInto('print_jobs')
    .values({
      company_id: p.companyId,
      document_id: p.documentId,
      route: p.route,
      title: p.title,
      status: 'queued',
      content_type: p.contentType,
      size: p.size,
      sha256: p.sha256,
      copies: p.copies,
      priority: p.priority,
      options: p.options,
      attempts: 0,
      agent_id: null,
      printer: null,
      error_message: null,
      error_code: null,
      reprint_of: p.reprintOf,
      created_at: p.createdAt,
      updated_at: p.createdAt,
      claimed_at: null,
      printed_at: null,
      expires_at: p.expiresAt,
      lease_expires_at: null,
    })
    .returningAll(),
);

const columnsOf = ({ document, ...values }: QueuedJobValues): JobColumns => ({
  ...values,
  documentId: document.documentId,
  size: document.size,
  sha256: document.sha256,
});

/** A queued job's first event (`message`: why it exists, e.g. a reprint). */
const queuedTransition = (values: QueuedJobValues, row: JobRow, message: string | null) => ({
  companyId: values.companyId,
  jobId: row.id,
  from: null,
  to: 'queued' as const,
  agentId: null,
  message,
  at: values.createdAt,
});

/** Inserts a queued job and its first event (`message`: why it exists, e.g. a reprint). */
export async function insertQueuedJob(
  db: Db,
  values: QueuedJobValues,
  message: string | null,
): Promise<JobRow> {
  const [row] = await insertJobRow(db, columnsOf(values));
  if (!row) throw new Error('the job insert returned no row');
  await writeTrail(db, [queuedTransition(values, row, message)]);
  return row;
}

/** `insertQueuedJob`, synchronously, in SQLite's group commit (`../common/change-unit.ts`). */
export function insertQueuedJobNow(
  db: Db,
  values: QueuedJobValues,
  message: string | null,
): JobRow {
  const [row] = insertJobRow.sync(db, columnsOf(values));
  if (!row) throw new Error('the job insert returned no row');
  transitionStatement.sync(db, queuedTransition(values, row, message));
  return row;
}
