import { describe, expect, it } from 'vitest';
import type { Db } from '../../server/storage/db.ts';
import { perTurn } from '../../server/storage/per-turn.ts';

/** Only a key for the batches here: `perTurn` never touches the database itself. */
const database = (): Db => ({}) as Db;

function recorder() {
  const runs: { db: Db; inputs: number[] }[] = [];
  const call = perTurn(async (db: Db, inputs: number[]) => {
    runs.push({ db, inputs });
    return inputs.map((input) => input * 10);
  });
  return { runs, call };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('perTurn', () => {
  it('runs the calls of one turn together, in call order, each with its own output', async () => {
    const { runs, call } = recorder();
    const db = database();
    const outputs = await Promise.all([call(db, 1), call(db, 2), call(db, 3)]);
    expect(outputs).toEqual([10, 20, 30]);
    expect(runs).toEqual([{ db, inputs: [1, 2, 3] }]);
  });

  it('calls of later turns make batches of their own; another database batches apart', async () => {
    const { runs, call } = recorder();
    const [one, two] = [database(), database()];
    const first = call(one, 1);
    const other = call(two, 2);
    await nextTurn();
    const later = call(one, 3);
    expect(await Promise.all([first, other, later])).toEqual([10, 20, 30]);
    expect(runs.map((run) => run.inputs)).toEqual([[1], [2], [3]]);
    expect(runs.map((run) => run.db)).toEqual([one, two, one]);
  });

  it('a failed run fails every call of its batch, and only those', async () => {
    let fail = true;
    const call = perTurn(async (_db: Db, inputs: number[]) => {
      if (fail) throw new Error('the database went away');
      return inputs;
    });
    const db = database();
    const batch = [call(db, 1), call(db, 2)];
    const settled = await Promise.allSettled(batch);
    expect(settled.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await call(db, 3)).toBe(3);
  });

  it("an output that is a promise settles its own call alone: one call's failure leaves the others", async () => {
    const call = perTurn(async (_db: Db, inputs: number[]) =>
      inputs.map((input) =>
        input === 2 ? Promise.reject(new Error('this one failed')) : Promise.resolve(input),
      ),
    );
    const db = database();
    const settled = await Promise.allSettled([call(db, 1), call(db, 2), call(db, 3)]);
    expect(settled).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: new Error('this one failed') },
      { status: 'fulfilled', value: 3 },
    ]);
  });

  it('a call inside a transaction runs at once, alone', async () => {
    const { runs, call } = recorder();
    const transaction = { isTransaction: true } as Db;
    const db = database();
    const batched = call(db, 1);
    expect(await call(transaction, 2)).toBe(20);
    expect(runs).toEqual([{ db: transaction, inputs: [2] }]);
    expect(await batched).toBe(10);
  });

  it('a run that throws before its promise fails its calls too', async () => {
    const call = perTurn((_db: Db, _inputs: number[]): Promise<number[]> => {
      throw new Error('bad input');
    });
    await expect(call(database(), 1)).rejects.toThrow('bad input');
  });
});
