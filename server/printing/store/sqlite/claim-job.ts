import { type Kysely, sql } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import { prepared } from '../../../storage/prepared.ts';
import type { Database } from '../../../storage/schema.ts';
import type { JobOperation } from '../common/batcher.ts';
import { claimedColumns, claimTransition, documentContent } from '../common/claim-update.ts';
import { asInteger, bestQueuedJob, comesFirst } from '../common/queue-order.ts';
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
 * SQLite's claim as the batcher runs it (`../common/batcher.ts`): the pick, the UPDATE by
 * id, the claim's event, the document, and the outbox row when an endpoint takes
 * `print_job.claimed`, synchronously, in the group commit of this turn's writes (no Kysely
 * connection lock, promises or transaction object, about half a claim's CPU; one commit for
 * the group). The group holds SQLite's write lock (`BEGIN IMMEDIATE`), so no other
 * process's commit can come between the pick and its update.
 */
export const sqliteClaim: JobOperation<ClaimRequest, StoredClaim | undefined> = {
  kindOf: () => 'claimed',
  companyOf: (request) => request.companyId,
  changesOf: (_batch, claims) =>
    claims.flatMap((claim) => (claim ? [{ kind: 'claimed' as const, row: claim.row }] : [])),
  write: (db, batch) => batch.map((request) => claimNow(db, request)),
};

/** The claim's statements, run straight on the connection by the unit that holds it. */
function claimNow(db: Db, request: ClaimRequest): StoredClaim | undefined {
  const jobId = bestOf(pickStatement.sync(db, request), request.routes);
  if (jobId === undefined) return undefined;
  const row = claimByIdStatement.sync(db, { ...request, jobId })[0];
  if (!row) return undefined;
  // The id from the insert's own result, not `RETURNING id`.
  const eventId = transitionStatement.insertSync(db, claimTransition(request, row.id));
  const content = documentContent.sync(db, { documentId: row.document_id })[0]!.content;
  return { row, content, eventId };
}
