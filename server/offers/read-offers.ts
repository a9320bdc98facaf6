import type { Selectable } from 'kysely';
import { fromCents } from '../../shared/money.ts';
import type { OfferListQuery, OfferRecord } from '../../shared/offers.ts';
import { NotFound } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { offsetOf, totalOf } from '../storage/pages.ts';
import type { OfferTables } from '../storage/tables/offers.ts';
import { lineRecord } from './price-offer.ts';

export type OfferRow = Selectable<OfferTables['offers']>;
type ItemRow = Selectable<OfferTables['offer_items']>;

function toRecord(row: OfferRow, items: ItemRow[]): OfferRecord {
  return {
    id: row.id,
    status: row.status,
    customer_id: row.customer_id,
    items: items.map((item) => ({ id: item.id, ...lineRecord(item) })),
    subtotal: fromCents(Number(row.subtotal_cents)),
    discount: fromCents(Number(row.discount_cents)),
    total: fromCents(Number(row.total_cents)),
    notes: row.notes,
    valid_until: row.valid_until,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function withItems(db: Db, rows: OfferRow[]): Promise<OfferRecord[]> {
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
  return rows.map((row) => toRecord(row, byOffer.get(row.id) ?? []));
}

/**
 * `lock` (PostgreSQL; SQLite runs one writer at a time): hold the row until the transaction
 * ends, so that writes of one offer run one after another. Two PATCHes replacing the lines
 * would otherwise each delete the lines they saw and insert their own, leaving both sets;
 * a status change could also slip past another's check. `NO KEY UPDATE`: the lines'
 * reference to the offer does not wait on it.
 */
export async function getOfferRow(
  db: Db,
  companyId: number,
  id: number,
  { lock = false }: { lock?: boolean } = {},
): Promise<OfferRow> {
  let query = db
    .selectFrom('offers')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id);
  if (lock) query = query.forNoKeyUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw new NotFound('Offer');
  return row;
}

export async function getOffer(db: Db, companyId: number, id: number): Promise<OfferRecord> {
  const row = await getOfferRow(db, companyId, id);
  return (await withItems(db, [row]))[0]!;
}

export async function listOffers(
  storage: Storage,
  companyId: number,
  query: OfferListQuery,
): Promise<{ rows: OfferRecord[]; total: number }> {
  let base = storage.db.selectFrom('offers').where('company_id', '=', companyId);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.customer_id) base = base.where('customer_id', '=', query.customer_id);
  const total = await totalOf(base);
  const rows = await base
    .selectAll()
    .orderBy('id')
    .limit(query.per_page)
    .offset(offsetOf(query))
    .execute();
  return { rows: await withItems(storage.db, rows), total };
}
