import type { Db } from '../../../storage/db.ts';
import { prepared } from '../../../storage/prepared.ts';

// The newest event of all, and whether the one known as a company's newest is still there.
const topAndKept = prepared((db, p: { known: number }) =>
  db.selectNoFrom((eb) => [
    eb
      .selectFrom('print_job_events')
      .select((inner) => inner.fn.max('id').as('top'))
      .as('top'),
    eb.exists(eb.selectFrom('print_job_events').select('id').where('id', '=', p.known)).as('kept'),
  ]),
);

// The company's newest event after `after`: the trail read backwards by its ids (no index by
// company), stopping at the first of the company's or at `after`.
const newestAfter = prepared((db, p: { companyId: number; after: number }) =>
  db
    .selectFrom('print_job_events')
    .select('id')
    .where('company_id', '=', p.companyId)
    .where('id', '>', p.after)
    .orderBy('id', 'desc')
    .limit(1),
);

/**
 * The id of a company's newest job event on SQLite (0: none), as an index of events by
 * company would answer in one step, without that index (migration 042: its entry in every
 * event cost ~8 % of the queue's CPU a claimed and confirmed job). The console's live pages
 * ask it every 250 ms for each company with a page open (`readPrintingMarks`).
 *
 * Kept per company with the newest id of all events at the time (`top`): the next read
 * looks only at the events written since (ids grow, and SQLite's one writer commits them in
 * that order, the CLI's included), so a read costs the events of the last 250 ms, however
 * long the company has been idle. The first read of a company, and one after its newest
 * event was deleted (a claim given back), read the trail backwards to the company's newest.
 */
export class NewestEvents {
  readonly #known = new Map<number, { newest: number; top: number }>();

  async of(db: Db, companyId: number): Promise<number> {
    const known = this.#known.get(companyId);
    const [row] = await topAndKept(db, { known: known?.newest ?? 0 });
    const top = Number(row?.top ?? 0);
    const kept = known !== undefined && (known.newest === 0 || Number(row?.kept) === 1);
    let newest: number;
    if (!kept) newest = await this.#newestAfter(db, companyId, 0);
    else if (top > known.top) {
      newest = (await this.#newestAfter(db, companyId, known.top)) || known.newest;
    } else newest = known.newest;
    this.#known.set(companyId, { newest, top });
    return newest;
  }

  async #newestAfter(db: Db, companyId: number, after: number): Promise<number> {
    const [row] = await newestAfter(db, { companyId, after });
    return row?.id ?? 0;
  }
}
