import { type Kysely, sql } from 'kysely';
import { isConnectionLoss } from '../../../storage/connection-loss.ts';
import type { Db } from '../../../storage/db.ts';
import { prepared } from '../../../storage/prepared.ts';
import type { Database } from '../../../storage/schema.ts';
import { batcher, type JobOperation, statementUnits } from '../common/batcher.ts';
import { changedOnce } from '../common/change-unit.ts';
import { claimedColumns } from '../common/claim-update.ts';
import { asInteger, bestQueuedJob, queueOrder } from '../common/queue-order.ts';
import type { StoreContext } from '../common/store-context.ts';
import { claimedHistory, historyFrom } from '../common/trail.ts';
import type { ClaimRequest, StoredClaim } from '../queue-store.ts';
import { type ClaimRow, claimMany, type ManyClaim } from './claim-many.ts';
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
 * One agent's claim: the claim, its event and the document's content in one statement (on
 * its own, autocommit: one round trip instead of BEGIN, UPDATE, INSERT, SELECT, COMMIT).
 * Data-modifying CTEs all run, or none, in the statement's one transaction; the event is
 * made from the row the UPDATE returned. The subquery picks the job and the outer
 * `status = 'queued'` re-checks it, so two claimers can never both win one job.
 * `onNamedRoutes`: only on the routes the agent names (those it can print on now).
 */
const oneAgentClaim = (onNamedRoutes: boolean) =>
  prepared<ClaimRequest, ClaimRow>((db, p) =>
    db
      .with('claimed', (qc) =>
        qc
          .updateTable('print_jobs')
          .set(claimedColumns(p))
          .where('id', '=', pick(db, p, onNamedRoutes))
          .where('status', '=', 'queued')
          .returningAll(),
      )
      .with('event', () =>
        sql.raw<{ id: number }>(`(${historyFrom('claimed', claimedHistory, '"id"')})`),
      )
      .selectFrom('claimed')
      .innerJoin('event', (join) => join.onTrue())
      .innerJoin('print_documents as d', 'd.id', 'claimed.document_id')
      .selectAll('claimed')
      .select(['event.id as event_id', 'd.content as document_content']),
  );

const claimInOneStatement = oneAgentClaim(false);
const claimOnRoutesInOneStatement = oneAgentClaim(true);

/** A claim's row as the store answers it: the job, its document, its event's id. */
function storedClaim(found: ClaimRow | undefined): StoredClaim | undefined {
  if (!found) return undefined;
  const { event_id: eventId, document_content: content, ...row } = found;
  return { row, content, eventId };
}

/**
 * The claim as the queue's one batcher runs it (../common/batcher.ts): a batch of one runs
 * the one-agent statement; several run `claimMany` (claim-many.ts), in one statement with
 * their events, documents and outbox rows. `alone`: never gathered with the turn's other
 * claims (an agent that names the routes it can print on now, or one that `claimMany` left
 * without a job): its own unit of work, so should it fail only its caller hears of it.
 */
const claimOperation = (alone: boolean): JobOperation<ClaimRequest, ManyClaim> => ({
  kindOf: () => 'claimed',
  companyOf: (request) => request.companyId,
  changesOf: (_batch, claims) =>
    changedOnce(
      'claimed',
      claims.map((claim) => (claim.kind === 'claimed' ? storedClaim(claim.row)?.row : undefined)),
    ),
  write: async (unit, batch) =>
    batch.length === 1 ? [await oneAgentClaimOf(unit, batch[0]!)] : claimMany(unit, batch),
  alone,
});

/** One agent's claim in one statement, on the routes it names when it names them. */
async function oneAgentClaimOf(db: Db, request: ClaimRequest): Promise<ManyClaim> {
  const statement =
    request.routes === undefined ? claimInOneStatement : claimOnRoutesInOneStatement;
  const row = (await statement(db, request))[0];
  return row ? { kind: 'claimed', row } : { kind: 'nothing' };
}

/**
 * PostgreSQL's claim, through the queue's one batcher: the claims that arrive in the same
 * turn of the event loop are one batch (`perTurn`, docs/printing.md: agents that print
 * steadily come back for their next job in bursts, as their confirms are answered). An agent
 * that names the routes it can print on now (rare: one of its printers cannot print) claims
 * alone, and so does one that the batch left without a job while its routes hold queued ones
 * (the one-agent statement also looks at its other routes). Inside a transaction it runs
 * there, alone. When the connection is lost during the claim, a claim that committed but
 * whose answer did not come back would hold a job for an agent that never heard of it: it is
 * given back (`releaseLostClaim`) before the error goes on.
 */
export function postgresClaim(
  context: StoreContext,
): (db: Db, request: ClaimRequest) => Promise<StoredClaim | undefined> {
  const gathered = batcher(context, statementUnits, claimOperation(false));
  const alone = batcher(context, statementUnits, claimOperation(true));
  return async (db, request) => {
    try {
      let claim = await (request.routes === undefined ? gathered : alone)(db, request);
      if (claim.kind === 'missed') claim = await alone(db, request);
      return claim.kind === 'claimed' ? storedClaim(claim.row) : undefined;
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
  };
}
