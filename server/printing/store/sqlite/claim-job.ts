import { type Kysely, sql } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import { groupedSqliteTransaction, prepared } from '../../../storage/prepared.ts';
import type { Database } from '../../../storage/schema.ts';
import { claimedColumns, claimTransition, documentContent } from '../common/claim-update.ts';
import { asInteger, bestQueuedJob, comesFirst } from '../common/queue-order.ts';
import { finishChange, type StoreContext } from '../common/store-context.ts';
import { transitionStatement } from '../common/trail.ts';
import type { ClaimRequest, JobRow, StoredClaim } from '../queue-store.ts';

/**
 * The best queued job of the company on the route `r` (a row of print_routes in the outer
 * query), straight from the partial queue index (../common/queue-order.ts).
 */
const bestOnRoute = (db: Kysely<Database>, p: ClaimRequest) =>
  bestQueuedJob(db, p.companyId, p.now).where('c.route', '=', sql.ref<string>('r.name'));

/**
 * For each enabled route of the agent, that route's best queued job (no sort of the queue).
 * SQLite has a single writer, so the pick needs no lock. The best of those few is chosen in
 * JavaScript (`bestOf`): with ORDER BY ... LIMIT 1 SQLite built a temporary b-tree for every
 * claim; and the single UPDATE with the pick as its subquery ran about twice as slow as the
 * pick and the UPDATE by id (measured over 5,000 queued jobs: ~110–160 µs against ~55–90 µs).
 */
const pickStatement = prepared<ClaimRequest, RouteBest>((db, p) =>
  db
    .selectFrom('print_routes as r')
    .innerJoin('print_jobs as j', (join) => join.on((eb) => eb('j.id', '=', bestOnRoute(db, p))))
    .where('r.agent_id', '=', asInteger(p.agentRowId))
    .where('r.enabled', '=', sql.lit(1))
    .select(['j.id', 'j.priority', 'r.name as route']),
);

interface RouteBest {
  id: number;
  priority: number;
  route: string;
}

/**
 * The best of the routes' bests, in the queue's order; only of `routes` when the agent
 * names the routes it can print on now (a filter of the few rows read, no other statement).
 */
function bestOf(rows: RouteBest[], routes: readonly string[] | undefined): number | undefined {
  let best: RouteBest | undefined;
  for (const row of rows) {
    if (routes !== undefined && !routes.includes(row.route)) continue;
    if (best === undefined || comesFirst(row, best)) best = row;
  }
  return best?.id;
}

/** The claim of the picked job, still guarded by `status = 'queued'`. */
const claimByIdStatement = prepared<ClaimRequest & { jobId: number }, JobRow>((db, p) =>
  db
    .updateTable('print_jobs')
    .set(claimedColumns(p))
    .where('id', '=', p.jobId)
    .where('status', '=', sql.lit('queued'))
    .returningAll(),
);

/**
 * SQLite's claim: the pick, then the UPDATE by id, the claim's event and the document, in
 * one transaction. Usually (no webhook endpoint takes `print_job.claimed`, nothing else
 * holds the connection, no larger unit of work) the whole claim runs synchronously,
 * straight on the connection, in the group commit of the writes of this turn of the event
 * loop (`groupedSqliteTransaction`: no Kysely connection lock, promises or transaction
 * object: about half a claim's CPU; and one commit for the group). Otherwise a transaction
 * of the group commit (`BEGIN IMMEDIATE`, so that its read cannot be overtaken by another
 * process's commit before its write) writes the outbox row as well.
 */
export async function claimJob(
  context: StoreContext,
  db: Db,
  request: ClaimRequest,
): Promise<StoredClaim | undefined> {
  const recorded = context.changes.recordedInCommit(db, request.companyId, 'claimed');
  if (recorded === false) {
    const grouped = claimInGroup(db, request);
    if (grouped) {
      const claim = await grouped;
      if (claim) context.changes.committed({ kind: 'claimed', row: claim.row });
      return claim;
    }
  } else if (recorded instanceof Promise) {
    await recorded; // Loads the subscriptions: the next claims know at once.
  }
  return context.storage.transaction(db, async (trx) => {
    const picked = await trx.executeQuery(pickStatement.compile(trx, request));
    const jobId = bestOf(picked.rows, request.routes);
    if (jobId === undefined) return undefined;
    const claimed = await trx.executeQuery(claimByIdStatement.compile(trx, { ...request, jobId }));
    const row = claimed.rows[0];
    if (!row) return undefined;
    const event = await trx.executeQuery(
      transitionStatement.compile(trx, claimTransition(request, row.id)),
    );
    const document = await trx.executeQuery(
      documentContent.compile(trx, { documentId: row.document_id }),
    );
    await finishChange(context, trx, { kind: 'claimed', row });
    return {
      row,
      content: document.rows[0]!.content,
      eventId: Number(event.insertId),
    };
  });
}

/** The claim in the group commit, synchronously; `undefined` when the group cannot take it. */
function claimInGroup(db: Db, request: ClaimRequest): Promise<StoredClaim | undefined> | undefined {
  return groupedSqliteTransaction(db, () => {
    const jobId = bestOf(pickStatement.sync(db, request), request.routes);
    if (jobId === undefined) return undefined;
    const row = claimByIdStatement.sync(db, { ...request, jobId })[0];
    if (!row) return undefined;
    // The id from the insert's own result, not `RETURNING id`.
    const eventId = transitionStatement.insertSync(db, claimTransition(request, row.id));
    const content = documentContent.sync(db, { documentId: row.document_id })[0]!.content;
    return { row, content, eventId };
  });
}
