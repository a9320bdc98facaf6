import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { ClaimedJob } from '../../shared/printing.ts';
import { isConnectionLoss } from '../storage/connection-loss.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { perTurn } from '../storage/per-turn.ts';
import { groupedSqliteTransaction, prepared } from '../storage/prepared.ts';
import type { Database } from '../storage/schema.ts';
import { isoNow } from '../time.ts';
import { wantsEvent } from '../webhooks/outbox.ts';
import type { AgentRef } from './agents.ts';
import { recordJobEvent } from './job-events.ts';
import {
  eventRowOf,
  type JobRow,
  type Transition,
  toJobRecord,
  transitionStatement,
} from './jobs.ts';
import { type ClaimRow, type ClaimValues, claimMany } from './pg-claim.ts';
import { type PrintQueue, queueInTransaction } from './print-queue.ts';
import { releaseLostClaim, unclaimed } from './release-lost-claim.ts';

export interface Claim {
  job: ClaimedJob;
  /** Id of the claim's event, so that an undone claim leaves no trace. */
  eventId: number;
}

/**
 * `CAST(? AS INTEGER)`: with a bare `?` for the company and the agent, SQLite's plan for
 * this statement runs about three times slower (measured: ~45 µs against ~140 µs a claim).
 */
const asInteger = (value: number) => sql<number>`cast(${value} as integer)`;

/** What a claim writes on the job, in either dialect's UPDATE. */
const claimedColumns = (p: ClaimValues) => (eb: ExpressionBuilder<Database, 'print_jobs'>) => ({
  status: 'claimed' as const,
  agent_id: p.agentUuid,
  claimed_at: p.now,
  lease_expires_at: p.lease,
  updated_at: p.now,
  attempts: eb('attempts', '+', 1),
});

/**
 * The best job of the company that may be handed out now: queued and not past its expiry
 * (not handed out even before the sweep expires it); the highest priority, then the oldest.
 * One row, to be narrowed to some route by the caller. The literal status lets SQLite use
 * the partial index of queued jobs.
 */
function bestQueuedJob(db: Kysely<Database>, p: ClaimValues) {
  return db
    .selectFrom('print_jobs as c')
    .select('c.id')
    .where('c.company_id', '=', asInteger(p.companyId))
    .where('c.status', '=', sql.lit('queued'))
    .where((w) => w.or([w('c.expires_at', 'is', null), w('c.expires_at', '>', p.now)]))
    .orderBy('c.priority', 'desc')
    .orderBy('c.id')
    .limit(1);
}

/** The best job of the route `r` (a row of print_routes in the outer query). */
const bestOfRoute = (db: Kysely<Database>, p: ClaimValues) =>
  bestQueuedJob(db, p).where('c.route', '=', sql.ref<string>('r.name'));

/**
 * PostgreSQL: the claim in one statement: the subquery picks the job (below) and the
 * outer `status = 'queued'` re-checks it, so two claimers can never both win one job.
 */
const claimStatement = prepared<ClaimValues, JobRow>((db, p) =>
  db
    .updateTable('print_jobs')
    .set(claimedColumns(p))
    .where('id', '=', postgresPick(db, p))
    .where('status', '=', 'queued')
    .returningAll(),
);

/**
 * PostgreSQL, when no webhook endpoint of the company takes `print_job.claimed` (so no
 * outbox row is due): the claim, its event and the document's content in one statement,
 * run on its own (autocommit: one round trip instead of BEGIN, UPDATE, INSERT, SELECT,
 * COMMIT). Data-modifying CTEs all run, or none, in the statement's one transaction; the
 * event is made from the row the UPDATE returned.
 */
const claimAllInOneStatement = prepared<ClaimValues, ClaimRow>((db, p) =>
  db
    .with('claimed', (qc) =>
      qc
        .updateTable('print_jobs')
        .set(claimedColumns(p))
        .where('id', '=', postgresPick(db, p))
        .where('status', '=', 'queued')
        .returningAll(),
    )
    .with('event', (qc) =>
      qc
        .insertInto('print_job_events')
        .columns(['company_id', 'job_id', 'from_status', 'to_status', 'agent_id', 'message', 'at'])
        .expression((eb) =>
          eb
            .selectFrom('claimed')
            .select([
              'claimed.company_id',
              'claimed.id',
              sql.lit('queued').as('from_status'),
              sql.lit('claimed').as('to_status'),
              'claimed.agent_id',
              sql.lit(null).as('message'),
              'claimed.updated_at',
            ]),
        )
        .returning('id'),
    )
    .selectFrom('claimed')
    .innerJoin('event', (join) => join.onTrue())
    .innerJoin('print_documents as d', 'd.id', 'claimed.document_id')
    .selectAll('claimed')
    .select(['event.id as event_id', 'd.content as document_content']),
);

/**
 * PostgreSQL: `claimAllInOneStatement`, sent together with the other claims that arrive in
 * the same turn of the event loop (`perTurn`, docs/printing.md): agents that print steadily
 * come back for their next job in bursts, as their confirms are answered. A claim alone
 * (or one inside a transaction) runs the one-agent statement; a burst runs `claimMany`
 * (pg-claim.ts), and an agent that it left without a job while its routes hold queued ones
 * takes the one-agent statement after it.
 */
const claimWithOthers = perTurn(async (db: Db, batch: ClaimValues[]) => {
  type Claimed = ClaimRow | undefined;
  const alone = async (values: ClaimValues): Promise<Claimed> =>
    (await claimAllInOneStatement(db, values))[0];
  if (batch.length === 1) return [alone(batch[0]!)];
  const claims = await claimMany(db, batch);
  // Each agent that tries alone hears of its own try only: should it fail, the others'
  // claims stand (the caller gives back only its own agent's claim, claimNextJob).
  return claims.map((claim, i): Claimed | Promise<Claimed> => {
    if (claim.kind === 'claimed') return claim.row;
    return claim.kind === 'missed' ? alone(batch[i]!) : undefined;
  });
});

/**
 * SQLite: the pick, then the UPDATE of that one row by id (still guarded by `status =
 * 'queued'`), in one `BEGIN IMMEDIATE` transaction. SQLite ran the single UPDATE with the
 * pick as its subquery about twice as slow as the two statements (measured in one
 * transaction over 5,000 queued jobs: ~110–160 µs against ~55–90 µs).
 */
const sqlitePickStatement = prepared<ClaimValues, { id: number; priority: number }>((db, p) =>
  routeBests(db, p).select(['j.id', 'j.priority']),
);

/** The best of the routes' bests: the highest priority, then the oldest. */
function bestOf(rows: { id: number; priority: number }[]): number | undefined {
  let best = rows[0];
  for (const row of rows) {
    if (row.priority > best!.priority || (row.priority === best!.priority && row.id < best!.id)) {
      best = row;
    }
  }
  return best?.id;
}

const claimByIdStatement = prepared<ClaimValues & { jobId: number }, JobRow>((db, p) =>
  db
    .updateTable('print_jobs')
    .set(claimedColumns(p))
    .where('id', '=', p.jobId)
    .where('status', '=', sql.lit('queued'))
    .returningAll(),
);

/**
 * SQLite: for each enabled route of the agent, that route's best queued job straight from
 * the partial queue index (no sort of the queue). SQLite has a single writer, so the pick
 * needs no lock. The best of those few is chosen in JavaScript (`bestOf`): with ORDER BY
 * ... LIMIT 1 SQLite built a temporary b-tree for every claim.
 */
function routeBests(db: Kysely<Database>, p: ClaimValues) {
  return db
    .selectFrom('print_routes as r')
    .innerJoin('print_jobs as j', (join) => join.on((eb) => eb('j.id', '=', bestOfRoute(db, p))))
    .where('r.agent_id', '=', asInteger(p.agentRowId))
    .where('r.enabled', '=', sql.lit(1));
}

/**
 * PostgreSQL: `FOR UPDATE SKIP LOCKED`, so that concurrent claimers on every instance pass
 * over each other's rows instead of waiting, with the lock on the one row taken. SQLite's
 * form with the lock in its per-route subquery locked the best job of *every* route of the
 * agent until the claim committed (EXPLAIN ANALYZE: 3 row locks for an agent of 3 routes,
 * 1 job claimed): another agent serving one of those routes skipped that job, could answer
 * 204 with it queued, and a long-poll could go back to sleep on it until its wait ended.
 *
 * So, first (`fast`): find without locks the route whose best queued job is the agent's
 * best, then take that route's first job no other claimer holds, in the queue index's
 * order (no sort, one lock). Only when every queued job of that route is held by other
 * claimers at that instant (or nothing is queued), `fallback` takes the first unheld job
 * of all the agent's routes, which sorts their queued jobs (a plain `route IN (...) ORDER
 * BY` for every claim: 195 against 502 jobs/s in bench/printing.ts with 5,000 queued).
 * COALESCE evaluates the second subquery only when the first is null.
 */
function postgresPick(db: Kysely<Database>, p: ClaimValues) {
  const agentRoutes = db
    .selectFrom('print_routes as r')
    .where('r.agent_id', '=', asInteger(p.agentRowId))
    .where('r.enabled', '=', 1);
  const bestRoute = agentRoutes
    .innerJoin('print_jobs as j', (join) => join.on((eb) => eb('j.id', '=', bestOfRoute(db, p))))
    .select('r.name')
    .orderBy('j.priority', 'desc')
    .orderBy('j.id')
    .limit(1);
  const fast = bestQueuedJob(db, p).where('c.route', '=', bestRoute).forUpdate().skipLocked();
  const fallback = bestQueuedJob(db, p)
    .where('c.route', 'in', agentRoutes.select('r.name'))
    .forUpdate()
    .skipLocked();
  return sql<number>`coalesce((${fast}), (${fallback}))`;
}

/** The claim's event, with its id (the path that may run on PostgreSQL needs `RETURNING`). */
const claimEvent = prepared<Transition, { id: number }>((db, t) =>
  db.insertInto('print_job_events').values(eventRowOf(t)).returning('id'),
);

/** The transition a claim writes down. */
const claimTransition = (values: ClaimValues, jobId: number): Transition => ({
  companyId: values.companyId,
  jobId,
  from: 'queued',
  to: 'claimed',
  agentId: values.agentUuid,
  message: null,
  at: values.now,
});

const documentContent = prepared<{ documentId: number }, { content: Buffer }>((db, p) =>
  db.selectFrom('print_documents').select('content').where('id', '=', p.documentId),
);

/**
 * Claims the oldest job of the highest priority queued on one of the agent's enabled
 * routes for that agent (status, agent, claim time, lease, attempts + 1), records the
 * event and reads the document, in one transaction.
 */
export async function claimNextJob(
  storage: Storage,
  agent: AgentRef,
  now: Date,
  leaseSeconds: number,
): Promise<Claim | undefined> {
  const values: ClaimValues = {
    companyId: agent.companyId,
    agentRowId: agent.rowId,
    agentUuid: agent.uuid,
    now: isoNow(now),
    lease: isoNow(new Date(now.getTime() + leaseSeconds * 1000)),
  };
  if (storage.dialect === 'sqlite') {
    const wants = wantsEvent(storage, storage.db, values.companyId, 'print_job.claimed');
    if (wants === false) {
      const done = claimAtOnce(storage, values);
      if (done) return done;
    } else if (wants instanceof Promise) {
      await wants; // Loads the subscriptions: the next claims know at once.
    }
    // A webhook endpoint takes the event (or the connection was busy): an ordinary
    // transaction, which on SQLite is a `BEGIN IMMEDIATE` group member (storage.md), so its
    // read cannot be overtaken by another process's commit before its write; the outbox's
    // nudge to the dispatcher waits for the commit.
    return storage.transaction(async (trx) => {
      const picked = await trx.executeQuery(sqlitePickStatement.compile(trx, values));
      const jobId = bestOf(picked.rows);
      if (jobId === undefined) return undefined;
      const claimed = await trx.executeQuery(claimByIdStatement.compile(trx, { ...values, jobId }));
      return finishClaim(storage, trx, values, claimed.rows[0]);
    });
  }
  try {
    if ((await wantsEvent(storage, storage.db, agent.companyId, 'print_job.claimed')) === false) {
      const row = await claimWithOthers(storage.db, values);
      if (!row) return undefined;
      const { event_id: eventId, document_content: content, ...job } = row;
      return { eventId, job: claimedJob(job, content) };
    }
    return await storage.transaction(async (trx) => {
      const claimed = await trx.executeQuery(claimStatement.compile(trx, values));
      return finishClaim(storage, trx, values, claimed.rows[0]);
    });
  } catch (error) {
    // The connection was lost during the claim: if it committed but its answer did not come
    // back, a job is claimed by an agent that never heard of it. Give it back now (on a new
    // connection) rather than leave it to fail when its lease runs out.
    if (isConnectionLoss(error)) {
      await releaseLostClaim(storage, {
        companyId: values.companyId,
        agentUuid: values.agentUuid,
        claimedAt: values.now,
      }).catch(() => undefined);
    }
    throw error;
  }
}

/**
 * SQLite, the usual case: the whole claim synchronously, straight on the connection, in the
 * group commit of the claims and confirms made in this turn of the event loop (the same
 * statements as the ordinary path in `claimNextJob`, without Kysely's connection lock, promises
 * and transaction object: about half a claim's CPU; and one commit for the group). Only
 * when no webhook endpoint of the company takes `print_job.claimed` (known without a
 * query) and nothing else holds the connection; otherwise `undefined`, and the caller
 * takes the general path.
 */
function claimAtOnce(
  storage: Storage,
  values: ClaimValues,
): Promise<Claim | undefined> | undefined {
  const db = storage.db;
  if (wantsEvent(storage, db, values.companyId, 'print_job.claimed') !== false) return undefined;
  return groupedSqliteTransaction(db, () => {
    const jobId = bestOf(sqlitePickStatement.sync(db, values));
    if (jobId === undefined) return undefined;
    const row = claimByIdStatement.sync(db, { ...values, jobId })[0];
    if (!row) return undefined;
    // The id from the insert's own result, not `RETURNING id`.
    const eventId = transitionStatement.insertSync(db, claimTransition(values, row.id));
    const document = documentContent.sync(db, { documentId: row.document_id });
    return claimOf(row, eventId, document[0]!.content);
  });
}

/** The claim as the agent gets it: the job and its document, and the claim's event. */
function claimOf(row: JobRow, eventId: number, content: Buffer): Claim {
  return { eventId, job: claimedJob(row, content) };
}

/** The claim's event (and its webhook event) and the document, in the claim's transaction. */
async function finishClaim(
  storage: Storage,
  db: Db,
  values: ClaimValues,
  row: JobRow | undefined,
): Promise<Claim | undefined> {
  if (!row) return undefined;
  const event = await db.executeQuery(claimEvent.compile(db, claimTransition(values, row.id)));
  await recordJobEvent(storage, db, 'print_job.claimed', row);
  const document = await db.executeQuery(
    documentContent.compile(db, { documentId: row.document_id }),
  );
  return claimOf(row, event.rows[0]!.id, document.rows[0]!.content);
}

/** The claimed job as the agent gets it: the job with its document's content. */
function claimedJob(row: JobRow, content: Buffer): ClaimedJob {
  const record = toJobRecord(row);
  return {
    ...record,
    document: {
      content_type: record.content_type,
      size: record.size,
      sha256: record.sha256,
      content_base64: Buffer.from(content).toString('base64'),
    },
  };
}

/**
 * Gives back a claim whose answer could not be delivered (the client went away while it
 * was being made): the job is queued again as if it had never been claimed — attempts
 * restored and the claim's event removed — and the agents waiting on its route are woken.
 * Only a claim still held by that agent is undone.
 */
export async function undoClaim(
  queue: PrintQueue,
  agent: AgentRef,
  claim: Claim,
): Promise<boolean> {
  const requeued = await queueInTransaction(queue, agent.companyId, async (trx) => {
    const result = await trx
      .updateTable('print_jobs')
      .set(unclaimed)
      .where('id', '=', claim.job.id)
      .where('company_id', '=', agent.companyId)
      .where('agent_id', '=', agent.uuid)
      .where('status', '=', 'claimed')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    await trx.deleteFrom('print_job_events').where('id', '=', claim.eventId).execute();
    return claim.job;
  });
  return requeued !== undefined;
}
