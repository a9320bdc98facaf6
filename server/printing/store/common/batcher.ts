import type { Db } from '../../../storage/db.ts';
import { perTurn } from '../../../storage/per-turn.ts';
import type { JobChange, JobChangeKind, JobRow, NewJob } from '../queue-store.ts';
import {
  type ChangeUnit,
  changedOnce,
  inGroupUnit,
  inStatementUnit,
  outboxOf,
} from './change-unit.ts';
import type { StoreContext } from './store-context.ts';

/**
 * A job operation as the batcher runs it, in batch form (a batch of one is the single
 * case): the change each input makes, and the SQL of a batch (`write`), which the store
 * of each database gives. It never asks whether anything subscribes: the batcher reads the
 * outbox of the batch before its unit of work begins.
 */
export interface JobOperation<In, Out> {
  /** The change an input makes (its webhook event). */
  kindOf(input: In): JobChangeKind;
  companyOf(input: In): number;
  /** The changes of a batch, from its outputs (in the inputs' order). */
  changesOf(batch: readonly In[], outputs: readonly Out[]): JobChange[];
  /** The batch's statements: one output per input, in order. */
  write(db: Db, batch: In[]): Out[] | Promise<Out[]>;
  /**
   * Never gathered with the other calls of its turn (PostgreSQL's create: its statements
   * are not guarded, so a batch that failed half-way would fail calls whose job was
   * queued, and their clients would queue it again). A batch of one each.
   */
  alone?: boolean;
}

/**
 * How a store runs a batch's unit of work (`change-unit.ts`).
 * - SQLite (`groupUnits`): each call is written at once, synchronously, in the group commit
 *   of the turn's writes: the group is the batch, one commit for all of them.
 * - PostgreSQL (`statementUnits`): the calls of one turn of the event loop are one batch
 *   (`perTurn`), written as one statement, on its own or with its outbox rows in one
 *   transaction. Inside a larger unit of work (the caller's transaction) a call runs at
 *   once, alone, there.
 */
export interface BatchUnits {
  readonly perTurn: boolean;
  run<T>(
    context: StoreContext,
    db: Db,
    unit: ChangeUnit<T>,
    write: (db: Db) => T | Promise<T>,
  ): Promise<T>;
}

export const groupUnits: BatchUnits = {
  perTurn: false,
  run: (context, db, unit, write) =>
    inGroupUnit(context, db, unit, () => {
      const result = write(db);
      // The group commit holds the connection only while `write` runs: it cannot wait.
      if (result instanceof Promise) throw new Error('a SQLite batch is written synchronously');
      return result;
    }),
};

export const statementUnits: BatchUnits = {
  perTurn: true,
  run: (context, db, unit, write) => inStatementUnit(context, db, unit, async (trx) => write(trx)),
};

/**
 * The one batcher of the queue's writes: `operation` in batch form, run in the store's
 * units of work (`units`). The calls of a batch share its outbox read (one
 * `JobChanges.outboxFor` a kind), its statement and its commit; each call gets its own
 * output. A failure of the batch fails each of its calls.
 */
export function batcher<In, Out>(
  context: StoreContext,
  units: BatchUnits,
  operation: JobOperation<In, Out>,
): (db: Db, input: In) => Promise<Out> {
  const { kindOf, companyOf } = operation;
  const run = async (db: Db, batch: In[]): Promise<Out[]> => {
    const only = batch.length === 1 ? batch[0]! : undefined;
    // A batch of one (every SQLite call) asks the cache directly, allocating nothing more.
    const outbox = await (only !== undefined
      ? context.changes.outboxFor(db, [companyOf(only)], kindOf(only))
      : outboxOf(
          context,
          db,
          batch.map((input) => ({ kind: kindOf(input), companyId: companyOf(input) })),
        ));
    const changesOf = (outputs: Out[]) => operation.changesOf(batch, outputs);
    return units.run(context, db, { outbox, changesOf }, (unit) => operation.write(unit, batch));
  };
  if (units.perTurn && !operation.alone) return perTurn(run);
  return async (db, input) => (await run(db, [input]))[0] as Out;
}

/**
 * A guarded change of one job per input (a confirm, a fail, a requeue, a cancel): the row
 * it changed, or `undefined` when the job was not in the state it expects (the caller reads
 * the job to say why). A job changed twice in one batch is announced once.
 */
export function guardedChange<In extends { companyId: number }>(
  kind: JobChangeKind,
  write: JobOperation<In, JobRow | undefined>['write'],
): JobOperation<In, JobRow | undefined> {
  return {
    kindOf: () => kind,
    companyOf: (input) => input.companyId,
    changesOf: (_batch, rows) => changedOnce(kind, rows),
    write,
  };
}

/** The create as the batcher runs it: each job queued, from the database's `write`; alone. */
export function newJobs(
  write: JobOperation<NewJob, JobRow>['write'],
): JobOperation<NewJob, JobRow> {
  return {
    kindOf: () => 'created',
    companyOf: (job) => job.companyId,
    changesOf: (_batch, rows) => rows.map((row) => ({ kind: 'created', row })),
    write,
    alone: true,
  };
}
