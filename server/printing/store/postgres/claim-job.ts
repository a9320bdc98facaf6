import { type Kysely, sql } from 'kysely';
import { isConnectionLoss } from '../../../storage/connection-loss.ts';
import type { Db } from '../../../storage/db.ts';
import { perTurn } from '../../../storage/per-turn.ts';
import { prepared } from '../../../storage/prepared.ts';
import type { Database } from '../../../storage/schema.ts';
import { claimedColumns, claimTransition, documentContent } from '../common/claim-update.ts';
import { asInteger, bestQueuedJob, queueOrder } from '../common/queue-order.ts';
import { finishChange, type StoreContext } from '../common/store-context.ts';
import { eventRowOf, type Transition } from '../common/trail.ts';
import type { ClaimRequest, JobRow, StoredClaim } from '../queue-store.ts';
import { type ClaimRow, claimMany } from './claim-many.ts';
import { releaseLostClaim } from './release-lost-claim.ts';

/**
 * `FOR UPDATE SKIP LOCKED`, so that concurrent claimers on every instance pass over each
 * other's rows instead of waiting, with the lock on the one row taken. A form with the lock
 * in a per-route subquery locked the best job of *every* route of the agent until the claim
 * committed (EXPLAIN ANALYZE: 3 row locks for an agent of 3 routes, 1 job claimed): another
 * agent serving one of those routes skipped that job, could answer 204 with it queued, and
 * a long-poll could go back to sleep on it until its wait ended.
 *
 * So, first (`fast`): find without locks the route whose best queued job is the agent's
 * best, then take that route's first job no other claimer holds, in the queue index's
 * order (no sort, one lock). Only when every queued job of that route is held by other
 * claimers at that instant (or nothing is queued), `fallback` takes the first unheld job
 * of all the agent's routes, which sorts their queued jobs (a plain `route IN (...) ORDER
 * BY` for every claim: 195 against 502 jobs/s in bench/printing.ts with 5,000 queued).
 * COALESCE evaluates the second subquery only when the first is null.
 */
function pick(db: Kysely<Database>, p: ClaimRequest, onNamedRoutes = false) {
  const enabledRoutes = db
    .selectFrom('print_routes as r')
    .where('r.agent_id', '=', asInteger(p.agentRowId))
    .where('r.enabled', '=', 1);
  // The routes the agent can print on now, when it names them (a statement of its own).
  const agentRoutes = onNamedRoutes
    ? enabledRoutes.where(sql<boolean>`r.name = any(cast(${p.routes} as text[]))`)
    : enabledRoutes;
  const bestRoute = agentRoutes
    .innerJoin('print_jobs as j', (join) =>
      join.on((eb) =>
        eb(
          'j.id',
          '=',
          bestQueuedJob(db, p.companyId, p.now).where('c.route', '=', sql.ref<string>('r.name')),
        ),
      ),
    )
    .select('r.name')
    .orderBy(queueOrder('j'))
    .limit(1);
  const fast = bestQueuedJob(db, p.companyId, p.now)
    .where('c.route', '=', bestRoute)
    .forUpdate()
    .skipLocked();
  const fallback = bestQueuedJob(db, p.companyId, p.now)
    .where('c.route', 'in', agentRoutes.select('r.name'))
    .forUpdate()
    .skipLocked();
  return sql<number>`coalesce((${fast}), (${fallback}))`;
}

/**
 * The claim in a transaction (a webhook endpoint takes `print_job.claimed`, so its outbox
 * row commits with it): the subquery picks the job and the outer `status = 'queued'`
 * re-checks it, so two claimers can never both win one job.
 */
const claimStatement = prepared<ClaimRequest, JobRow>((db, p) =>
  db
    .updateTable('print_jobs')
    .set(claimedColumns(p))
    .where('id', '=', pick(db, p))
    .where('status', '=', 'queued')
    .returningAll(),
);

/**
 * `claimStatement` on the routes the agent names (those it can print on now): a claim taken
 * while one of its printers cannot print, so rare that it needs no one-statement path.
 */
const claimOnRoutesStatement = prepared<ClaimRequest, JobRow>((db, p) =>
  db
    .updateTable('print_jobs')
    .set(claimedColumns(p))
    .where('id', '=', pick(db, p, true))
    .where('status', '=', 'queued')
    .returningAll(),
);

/** The claim's event, with its id. */
const claimEvent = prepared<Transition, { id: number }>((db, t) =>
  db.insertInto('print_job_events').values(eventRowOf(t)).returning('id'),
);

/**
 * When no webhook endpoint of the company takes `print_job.claimed` (so no outbox row is
 * due): the claim, its event and the document's content in one statement, run on its own
 * (autocommit: one round trip instead of BEGIN, UPDATE, INSERT, SELECT, COMMIT).
 * Data-modifying CTEs all run, or none, in the statement's one transaction; the event is
 * made from the row the UPDATE returned.
 */
const claimInOneStatement = prepared<ClaimRequest, ClaimRow>((db, p) =>
  db
    .with('claimed', (qc) =>
      qc
        .updateTable('print_jobs')
        .set(claimedColumns(p))
        .where('id', '=', pick(db, p))
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
 * `claimInOneStatement`, sent together with the other claims that arrive in the same turn
 * of the event loop (`perTurn`, docs/printing.md): agents that print steadily come back
 * for their next job in bursts, as their confirms are answered. A claim alone (or one
 * inside a transaction) runs the one-agent statement; a burst runs `claimMany`
 * (claim-many.ts), and an agent that it left without a job while its routes hold queued
 * ones takes the one-agent statement after it.
 */
const claimWithOthers = perTurn(async (db: Db, batch: ClaimRequest[]) => {
  type Claimed = ClaimRow | undefined;
  const alone = async (request: ClaimRequest): Promise<Claimed> =>
    (await claimInOneStatement(db, request))[0];
  if (batch.length === 1) return [alone(batch[0]!)];
  const claims = await claimMany(db, batch);
  // Each agent that tries alone hears of its own try only: should it fail, the others'
  // claims stand (the caller gives back only its own agent's claim, `claimJob`).
  return claims.map((claim, i): Claimed | Promise<Claimed> => {
    if (claim.kind === 'claimed') return claim.row;
    return claim.kind === 'missed' ? alone(batch[i]!) : undefined;
  });
});

/**
 * PostgreSQL's claim. Usually (no webhook endpoint takes `print_job.claimed`, no larger unit
 * of work) one statement with this turn's other claims; otherwise the claim, its event, its
 * outbox row and the document in a transaction. When the connection is lost during the
 * claim, a claim that committed but whose answer did not come back would hold a job for an
 * agent that never heard of it: it is given back (`releaseLostClaim`) before the error goes on.
 */
export async function claimJob(
  context: StoreContext,
  db: Db,
  request: ClaimRequest,
): Promise<StoredClaim | undefined> {
  try {
    const recorded = await context.changes.recordedInCommit(db, request.companyId, 'claimed');
    const named = request.routes !== undefined;
    if (!recorded && !db.isTransaction && !named) {
      const found = await claimWithOthers(db, request);
      if (!found) return undefined;
      const { event_id: eventId, document_content: content, ...row } = found;
      context.changes.committed({ kind: 'claimed', row });
      return { row, content, eventId };
    }
    return await context.storage.transaction(db, async (trx) => {
      const statement = named ? claimOnRoutesStatement : claimStatement;
      const claimed = await trx.executeQuery(statement.compile(trx, request));
      const row = claimed.rows[0];
      if (!row) return undefined;
      const event = await trx.executeQuery(
        claimEvent.compile(trx, claimTransition(request, row.id)),
      );
      const document = await trx.executeQuery(
        documentContent.compile(trx, { documentId: row.document_id }),
      );
      await finishChange(context, trx, { kind: 'claimed', row });
      return { row, content: document.rows[0]!.content, eventId: event.rows[0]!.id };
    });
  } catch (error) {
    if (isConnectionLoss(error)) {
      await releaseLostClaim(context, {
        companyId: request.companyId,
        agentUuid: request.agentUuid,
        claimedAt: request.now,
      }).catch(() => undefined);
    }
    throw error;
  }
}
