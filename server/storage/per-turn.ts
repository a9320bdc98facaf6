import type { Db } from './db.ts';

interface Waiting<In, Out> {
  input: In;
  resolve(output: Out | Promise<Out>): void;
  reject(error: unknown): void;
}

/**
 * Gathers the calls made in one turn of the event loop and runs them together when that
 * turn's I/O is done (`setImmediate`): `run` gets every input of the turn, in call order,
 * and gives one output for each, in the same order: a value, or a promise of the call's
 * own (which settles that call alone, as it settles). A failure of `run` fails every call
 * of its batch. One batch per database: calls on another Kysely instance batch apart. A
 * call inside a transaction runs at once, alone, in that transaction: its statements must
 * go in order on the transaction's connection.
 *
 * For statements that requests send in bursts (PostgreSQL's confirms and claims of the
 * print queue, docs/printing.md): one statement, one commit and one round trip a burst
 * instead of one each. A call alone waits only for the end of its turn.
 */
export function perTurn<In, Out>(
  run: (db: Db, inputs: In[]) => Promise<(Out | Promise<Out>)[]>,
): (db: Db, input: In) => Promise<Out> {
  const open = new WeakMap<Db, Waiting<In, Out>[]>();
  const start = (db: Db, inputs: In[]): Promise<(Out | Promise<Out>)[]> => {
    try {
      return run(db, inputs);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const flush = (db: Db, batch: Waiting<In, Out>[]) => {
    open.delete(db);
    start(
      db,
      batch.map((waiting) => waiting.input),
    ).then(
      (outputs) => {
        for (const [i, waiting] of batch.entries())
          waiting.resolve(outputs[i] as Out | Promise<Out>);
      },
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
  };
  return (db, input) => {
    if (db.isTransaction) return start(db, [input]).then((outputs) => outputs[0] as Out);
    return new Promise<Out>((resolve, reject) => {
      let batch = open.get(db);
      if (!batch) {
        const opened: Waiting<In, Out>[] = [];
        batch = opened;
        open.set(db, opened);
        setImmediate(() => flush(db, opened));
      }
      batch.push({ input, resolve, reject });
    });
  };
}

/** A batch's inputs as one array per field, in batch order: the parameters of an `unnest`. */
export function fieldArrays<T, K extends keyof T>(batch: readonly T[], fields: readonly K[]) {
  return fields.map((field) => batch.map((input) => input[field]));
}
