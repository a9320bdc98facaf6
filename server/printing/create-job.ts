import { hash } from 'node:crypto';
import type { ContentType, JobRecord, PrintOptions } from '../../shared/printing.ts';
import type { Db } from '../storage/db.ts';
import { prepared } from '../storage/prepared.ts';
import { isoNow } from '../time.ts';
import { wantsEvent } from '../webhooks/outbox.ts';
import { recordJobEvent } from './job-events.ts';
import { type JobRow, recordTransitions, toJobRecord } from './jobs.ts';
import { createInOneStatement } from './pg-create.ts';
import { type PrintQueue, queueInTransaction } from './print-queue.ts';

export interface NewJob {
  route: string;
  title?: string | undefined;
  content_type: ContentType;
  content: Buffer;
  copies: number;
  priority: number;
  options: PrintOptions;
  expires_in?: number | undefined;
}

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

/**
 * Stores the content once per company (by sha256) and returns its row id: the insert gives
 * it back for new content (the usual case, one statement); content stored before is read.
 */
async function storeDocument(db: Db, companyId: number, content: Buffer, stamp: string) {
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

/** When a job with `expires_in` seconds expires, or null when it never does. */
const expiryOf = (expiresIn: number | undefined, now: Date): string | null =>
  expiresIn === undefined ? null : isoNow(new Date(now.getTime() + expiresIn * 1000));

type JobValues = {
  companyId: number;
  documentId: number;
  route: string;
  title: string | null;
  contentType: ContentType;
  size: number;
  sha256: string;
  copies: number;
  priority: number;
  options: string;
  reprintOf: number | null;
  createdAt: string;
  expiresAt: string | null;
};

const insertJobRow = prepared((db, p: JobValues) =>
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

export async function insertJob(
  db: Db,
  companyId: number,
  job: Omit<NewJob, 'content'> & {
    document: { documentId: number; sha256: string; size: number };
    reprintOf?: number;
    expiresAt?: string | null;
  },
  now: Date,
  message: string | null,
): Promise<JobRow> {
  const stamp = isoNow(now);
  const expiresAt = job.expiresAt !== undefined ? job.expiresAt : expiryOf(job.expires_in, now);
  const [row] = await insertJobRow(db, {
    companyId,
    documentId: job.document.documentId,
    route: job.route,
    title: job.title ?? null,
    contentType: job.content_type,
    size: job.document.size,
    sha256: job.document.sha256,
    copies: job.copies,
    priority: job.priority,
    options: JSON.stringify(job.options),
    reprintOf: job.reprintOf ?? null,
    createdAt: stamp,
    expiresAt,
  });
  if (!row) throw new Error('the job insert returned no row');
  await recordTransitions(db, [
    { companyId, jobId: row.id, from: null, to: 'queued', agentId: null, message, at: stamp },
  ]);
  return row;
}

/** A new queued job; the agents waiting on its route are woken once it has committed. */
export async function createJob(
  queue: PrintQueue,
  companyId: number,
  input: NewJob,
  now: Date,
): Promise<JobRecord> {
  const { storage } = queue;
  const db = storage.db;
  // PostgreSQL, outside a larger unit of work (an idempotent request's transaction) and
  // when no endpoint takes the event: one statement (pg-create.ts).
  if (
    storage.dialect === 'postgres' &&
    !db.isTransaction &&
    (await wantsEvent(storage, db, companyId, 'print_job.created')) === false
  ) {
    const stamp = isoNow(now);
    const row = await createInOneStatement(db, {
      companyId,
      sha256: hash('sha256', input.content, 'hex'),
      size: input.content.length,
      content: input.content,
      route: input.route,
      title: input.title ?? null,
      contentType: input.content_type,
      copies: input.copies,
      priority: input.priority,
      options: JSON.stringify(input.options),
      createdAt: stamp,
      expiresAt: expiryOf(input.expires_in, now),
    });
    if (row) {
      // Committed: wake this process's waiters (the NOTIFY wakes every instance's).
      queue.notifier.jobQueued(companyId, row.route);
      return toJobRecord(row);
    }
  }
  const row = await queueInTransaction(queue, companyId, async (trx) => {
    const document = await storeDocument(trx, companyId, input.content, isoNow(now));
    const row = await insertJob(trx, companyId, { ...input, document }, now, null);
    await recordJobEvent(queue.storage, trx, 'print_job.created', row);
    return row;
  });
  return toJobRecord(row);
}
