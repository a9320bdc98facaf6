import { type Kysely, sql } from 'kysely';
import { isConnectionLoss } from '../../../storage/connection-loss.ts';
import type { Db } from '../../../storage/db.ts';
import { perTurn } from '../../../storage/per-turn.ts';
import { prepared } from '../../../storage/prepared.ts';
import type { Database } from '../../../storage/schema.ts';
import { changedOnce, inStatementUnit } from '../common/change-unit.ts';
import { claimedColumns } from '../common/claim-update.ts';
import { asInteger, bestQueuedJob, queueOrder } from '../common/queue-order.ts';
import type { StoreContext } from '../common/store-context.ts';
import { claimedHistory, historyFrom } from '../common/trail.ts';
import type { ChangeOutbox, ClaimRequest, JobChange, StoredClaim } from '../queue-store.ts';
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

const claimedOf = (rows: readonly (ClaimRow | undefined)[]): JobChange[] =>
  changedOnce(
    'claimed',
    rows.map((row) => row && storedClaim(row)?.row),
  );

/**
 * The claims of one batch, each agent's (undefined: none), each in its unit of work
 * (`inStatementUnit`). A claim alone runs the one-agent statement; several run `claimMany`
 * (claim-many.ts), and an agent that it left without a job while its routes hold queued
 * ones takes the one-agent statement after it. An agent that names the routes it can print
 * on now (rare: one of its printers cannot print) takes the one-agent statement on those
 * routes. Each agent that tries alone hears of its own try only: should it fail, the
 * others' claims stand (the caller gives back only its own agent's claim).
 */
async function claimsOf(
  context: StoreContext,
  db: Db,
  outbox: ChangeOutbox,
  batch: ClaimRequest[],
): Promise<(StoredClaim | undefined | Promise<StoredClaim | undefined>)[]> {
  const alone = (request: ClaimRequest) => {
    const statement =
      request.routes === undefined ? claimInOneStatement : claimOnRoutesInOneStatement;
    const changesOf = (row: ClaimRow | undefined) => claimedOf([row]);
    return inStatementUnit(
      context,
      db,
      { outbox, changesOf },
      async (unit) => (await statement(unit, request))[0],
    ).then(storedClaim);
  };
  const together = batch.filter((request) => request.routes === undefined);
  if (together.length < 2) return batch.map(alone);
  const changesOf = (claims: ManyClaim[]) =>
    claimedOf(claims.map((claim) => (claim.kind === 'claimed' ? claim.row : undefined)));
  const claims = await inStatementUnit(context, db, { outbox, changesOf }, (unit) =>
    claimMany(unit, together),
  );
  const byRequest = new Map(together.map((request, i) => [request, claims[i]!]));
  return batch.map((request) => {
    const claim = byRequest.get(request);
    if (!claim || claim.kind === 'missed') return alone(request);
    return claim.kind === 'claimed' ? storedClaim(claim.row) : undefined;
  });
}

/**
 * PostgreSQL's claim: the claims that arrive in the same turn of the event loop are one
 * batch (`perTurn`, docs/printing.md: agents that print steadily come back for their next
 * job in bursts, as their confirms are answered), one statement with their events and
 * documents (`claimsOf`), and the outbox rows when an endpoint takes `print_job.claimed`
 * (`inStatementUnit`). Inside a transaction it runs there, alone. When the connection is
 * lost during the claim, a claim that committed but whose answer did not come back would
 * hold a job for an agent that never heard of it: it is given back (`releaseLostClaim`)
 * before the error goes on.
 */
export function postgresClaim(
  context: StoreContext,
): (db: Db, request: ClaimRequest) => Promise<StoredClaim | undefined> {
  const claimBatch = perTurn(async (db: Db, batch: ClaimRequest[]) => {
    const companies = batch.map((request) => request.companyId);
    const outbox = await context.changes.outboxFor(db, companies, 'claimed');
    return claimsOf(context, db, outbox, batch);
  });
  return async (db, request) => {
    try {
      return await claimBatch(db, request);
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
