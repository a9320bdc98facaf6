import type { OfferRecord } from '../../shared/offers.ts';
import { NotFound } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { lockRows } from '../storage/locks.ts';
import { type OfferRow, toOfferRecord } from './records.ts';

/** The offers of `rows` with their lines, in their order. */
export async function withItems(db: Db, rows: OfferRow[]): Promise<OfferRecord[]> {
  if (rows.length === 0) return [];
  const items = await db
    .selectFrom('offer_items')
    .selectAll()
    .where(
      'offer_id',
      'in',
      rows.map((row) => row.id),
    )
    .orderBy('offer_id')
    .orderBy('position')
    .execute();
  const byOffer = Map.groupBy(items, (item) => item.offer_id);
  return rows.map((row) => toOfferRecord(row, byOffer.get(row.id) ?? []));
}

/**
 * `lock`: hold the row until `db`'s transaction ends (PostgreSQL; SQLite runs one writer at
 * a time), so that writes of one offer run one after another. Two PATCHes replacing the lines
 * would otherwise each delete the lines they saw and insert their own, leaving both sets;
 * a status change could also slip past another's check. `NO KEY UPDATE`: the lines'
 * reference to the offer does not wait on it.
 */
export async function readOfferRow(
  db: Db,
  companyId: number,
  id: number,
  { lock = false }: { lock?: boolean } = {},
): Promise<OfferRow> {
  const query = db
    .selectFrom('offers')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id);
  const row = await (lock ? lockRows(db, query, 'no key update') : query).executeTakeFirst();
  if (!row) throw new NotFound('Offer');
  return row;
}

export async function readOffer(db: Db, companyId: number, id: number): Promise<OfferRecord> {
  const row = await readOfferRow(db, companyId, id);
  return (await withItems(db, [row]))[0]!;
}
