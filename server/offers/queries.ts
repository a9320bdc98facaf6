import type { Selectable } from 'kysely';
import { fromCents, maxMoney, toCents } from '../../shared/money.ts';
import {
  editableStatuses,
  type OfferInput,
  type OfferListQuery,
  type OfferPatch,
  type OfferRecord,
  type OfferStatus,
  offerTransitions,
  type QuoteRecord,
  type QuoteWarning,
} from '../../shared/offers.ts';
import { fromMilli, toMilli } from '../../shared/quantity.ts';
import {
  Conflict,
  FieldErrors,
  InvalidFields,
  invalidField,
  NotFound,
  unknownReference,
} from '../domain-errors.ts';
import { availableMilli } from '../stock/balances.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { offsetOf } from '../storage/pages.ts';
import type { OfferTables } from '../storage/tables/offers.ts';
import { isoNow } from '../time.ts';
import { fromBasisPoints, lineTotalCents, toBasisPoints } from './pricing.ts';

type OfferRow = Selectable<OfferTables['offers']>;
type ItemRow = Selectable<OfferTables['offer_items']>;

// Totals stay exact doubles (below 2^53) when capped like any money field.
const maxMoneyCents = toCents(maxMoney);

/** A line priced and ready to store. */
interface PricedLine {
  product_id: number | null;
  product_code: string;
  product_name: string;
  quantity_milli: number;
  unit_price_cents: number;
  discount_basis_points: number;
  total_cents: number;
}

export interface PricedOffer {
  customer_id: number;
  lines: PricedLine[];
  subtotal_cents: number;
  discount_cents: number;
  total_cents: number;
  notes: string | null;
  valid_until: string | null;
  warnings: QuoteWarning[];
}

/**
 * Prices an offer without saving it: checks the customer and products belong to the
 * company, defaults unit prices to the products', computes each line and the totals in
 * cents, and warns (without failing) when a stock-managed product has less stock in all
 * warehouses than the offer asks. Errors are keyed under `prefix` (`offers.3.` in bulk).
 */
export async function priceOffer(
  db: Db,
  companyId: number,
  input: OfferInput,
  prefix = '',
  /**
   * PostgreSQL, when the lines are saved: hold the products until the transaction ends, so
   * that one deleted meanwhile is either gone before (422) or deleted after (its lines keep
   * their copies), never a foreign-key fault.
   */
  lockProducts = false,
): Promise<PricedOffer> {
  const errors = new FieldErrors();
  const customer = await db
    .selectFrom('customers')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', '=', input.customer_id)
    .executeTakeFirst();
  if (!customer) errors.unknown(`${prefix}customer_id`);
  const ids = [...new Set(input.items.map((item) => item.product_id))];
  let productQuery = db
    .selectFrom('products')
    .select(['id', 'code', 'name', 'price_cents', 'manage_stock'])
    .where('company_id', '=', companyId)
    .where('id', 'in', ids);
  if (lockProducts) productQuery = productQuery.forKeyShare();
  const products = await productQuery.execute();
  const byId = new Map(products.map((p) => [p.id, p]));
  errors.unknownIds(
    input.items.map((item) => item.product_id),
    new Set(byId.keys()),
    (index) => `${prefix}items.${index}.product_id`,
  );
  errors.throwIfAny();

  const lines: PricedLine[] = input.items.map((item) => {
    const product = byId.get(item.product_id)!;
    const unit =
      item.unit_price === undefined ? Number(product.price_cents) : toCents(item.unit_price);
    const quantity = toMilli(item.quantity);
    const basisPoints = toBasisPoints(item.discount_percent ?? 0);
    return {
      product_id: product.id,
      product_code: product.code,
      product_name: product.name,
      quantity_milli: quantity,
      unit_price_cents: unit,
      discount_basis_points: basisPoints,
      total_cents: lineTotalCents(unit, quantity, basisPoints),
    };
  });
  lines.forEach((line, index) => {
    if (line.total_cents > maxMoneyCents) {
      const key = `${prefix}items.${index}.quantity`;
      errors.add(key, `The line total of ${key} must not be greater than ${maxMoney}.`);
    }
  });
  errors.throwIfAny();
  const totals = totalsOf(lines, input.discount, prefix);
  const warnings = await stockWarnings(db, companyId, lines, byId);
  return {
    customer_id: input.customer_id,
    lines,
    ...totals,
    notes: input.notes ?? null,
    valid_until: input.valid_until ?? null,
    warnings,
  };
}

function totalsOf(lines: { total_cents: number }[], discount: number | undefined, prefix: string) {
  const subtotal = lines.reduce((sum, line) => sum + line.total_cents, 0);
  if (subtotal > maxMoneyCents) {
    throw invalidField(`${prefix}items`, `The subtotal must not be greater than ${maxMoney}.`);
  }
  const discountCents = toCents(discount ?? 0);
  if (discountCents > subtotal) {
    const key = `${prefix}discount`;
    throw invalidField(
      key,
      `The ${prefix ? key : 'discount'} field must not be greater than the subtotal (${fromCents(subtotal)}).`,
    );
  }
  return {
    subtotal_cents: subtotal,
    discount_cents: discountCents,
    total_cents: subtotal - discountCents,
  };
}

async function stockWarnings(
  db: Db,
  companyId: number,
  lines: PricedLine[],
  products: Map<number, { id: number; code: string; manage_stock: boolean | number }>,
): Promise<QuoteWarning[]> {
  const requested = new Map<number, number>();
  for (const line of lines) {
    const product = products.get(line.product_id!);
    if (!product?.manage_stock) continue;
    requested.set(product.id, (requested.get(product.id) ?? 0) + line.quantity_milli);
  }
  const available = await availableMilli(db, companyId, [...requested.keys()]);
  const warnings: QuoteWarning[] = [];
  for (const [productId, milli] of requested) {
    const have = available.get(productId) ?? 0;
    if (have >= milli) continue;
    const code = products.get(productId)!.code;
    warnings.push({
      code: 'insufficient_stock',
      product_id: productId,
      requested: fromMilli(milli),
      available: fromMilli(have),
      message: `Product ${code} has ${fromMilli(have)} in stock; the offer asks for ${fromMilli(milli)}.`,
    });
  }
  return warnings;
}

function lineRecord(line: PricedLine) {
  return {
    product_id: line.product_id,
    product_code: line.product_code,
    product_name: line.product_name,
    quantity: fromMilli(Number(line.quantity_milli)),
    unit_price: fromCents(Number(line.unit_price_cents)),
    discount_percent: fromBasisPoints(line.discount_basis_points),
    total: fromCents(Number(line.total_cents)),
  };
}

export function quoteRecordOf(priced: PricedOffer): QuoteRecord {
  return {
    customer_id: priced.customer_id,
    items: priced.lines.map(lineRecord),
    subtotal: fromCents(priced.subtotal_cents),
    discount: fromCents(priced.discount_cents),
    total: fromCents(priced.total_cents),
    notes: priced.notes,
    valid_until: priced.valid_until,
    warnings: priced.warnings,
  };
}

/** Up to 100 quotes; every invalid one is reported (`offers.N.…`) before any answer. */
export async function priceOffers(db: Db, companyId: number, inputs: OfferInput[]) {
  const errors: Record<string, string[]> = {};
  const quotes: QuoteRecord[] = [];
  for (const [index, input] of inputs.entries()) {
    try {
      quotes.push(quoteRecordOf(await priceOffer(db, companyId, input, `offers.${index}.`)));
    } catch (error) {
      if (!(error instanceof InvalidFields)) throw error;
      Object.assign(errors, error.errors);
    }
  }
  if (Object.keys(errors).length > 0) throw new InvalidFields(errors);
  return quotes;
}

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
async function getOfferRow(
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
  const counted = await base
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const rows = await base
    .selectAll()
    .orderBy('id')
    .limit(query.per_page)
    .offset(offsetOf(query))
    .execute();
  return { rows: await withItems(storage.db, rows), total: Number(counted.total) };
}

async function replaceLines(db: Db, offerId: number, lines: PricedLine[]) {
  await db.deleteFrom('offer_items').where('offer_id', '=', offerId).execute();
  await db
    .insertInto('offer_items')
    .values(lines.map((line, position) => ({ ...line, offer_id: offerId, position })))
    .execute();
}

export async function createOffer(
  storage: Storage,
  companyId: number,
  input: OfferInput,
  now: Date,
): Promise<OfferRecord> {
  return storage.db.transaction().execute(async (trx) => {
    const priced = await priceOffer(trx, companyId, input, '', storage.dialect === 'postgres');
    const stamp = isoNow(now);
    const row = await trx
      .insertInto('offers')
      .values({
        company_id: companyId,
        customer_id: priced.customer_id,
        status: 'draft',
        notes: priced.notes,
        valid_until: priced.valid_until,
        subtotal_cents: priced.subtotal_cents,
        discount_cents: priced.discount_cents,
        total_cents: priced.total_cents,
        created_at: stamp,
        updated_at: stamp,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await replaceLines(trx, row.id, priced.lines);
    return getOffer(trx, companyId, row.id);
  });
}

const contentFields = ['customer_id', 'items', 'discount', 'notes', 'valid_until'] as const;

/**
 * PUT (whole offer) and PATCH (what is sent). A status change must be one that
 * `offerTransitions` allows, and the content may change only while the offer is a draft or
 * sent: anything else is 409. Lines sent are priced anew (unit prices default to the
 * products' prices of now); a PATCH without lines keeps the stored ones and their prices.
 */
export async function updateOffer(
  storage: Storage,
  companyId: number,
  id: number,
  input: OfferPatch,
  mode: 'replace' | 'patch',
  now: Date,
): Promise<OfferRecord> {
  return storage.db.transaction().execute(async (trx) => {
    const existing = await getOfferRow(trx, companyId, id, {
      lock: storage.dialect === 'postgres',
    });
    const status: OfferStatus = input.status ?? existing.status;
    if (status !== existing.status && !offerTransitions[existing.status].includes(status)) {
      throw new Conflict(`An offer cannot go from ${existing.status} to ${status}.`);
    }
    const changesContent = contentFields.some((field) => input[field] !== undefined);
    if ((changesContent || mode === 'replace') && !editableStatuses.includes(existing.status)) {
      throw new Conflict(`An offer that is ${existing.status} cannot be changed.`);
    }
    const columns: Partial<OfferRow> = { status, updated_at: isoNow(now) };
    if (input.items || mode === 'replace') {
      const priced = await priceOffer(
        trx,
        companyId,
        {
          customer_id: input.customer_id ?? existing.customer_id,
          items: input.items!,
          discount:
            input.discount ??
            (mode === 'patch' ? fromCents(Number(existing.discount_cents)) : undefined),
        },
        '',
        storage.dialect === 'postgres',
      );
      await replaceLines(trx, id, priced.lines);
      Object.assign(columns, {
        customer_id: priced.customer_id,
        subtotal_cents: priced.subtotal_cents,
        discount_cents: priced.discount_cents,
        total_cents: priced.total_cents,
      });
    } else {
      if (input.customer_id !== undefined) {
        await assertCustomer(trx, companyId, input.customer_id);
        columns.customer_id = input.customer_id;
      }
      if (input.discount !== undefined) {
        const totals = totalsOf(
          [{ total_cents: Number(existing.subtotal_cents) }],
          input.discount,
          '',
        );
        columns.discount_cents = totals.discount_cents;
        columns.total_cents = totals.total_cents;
      }
    }
    if (input.notes !== undefined || mode === 'replace') columns.notes = input.notes ?? null;
    if (input.valid_until !== undefined || mode === 'replace') {
      columns.valid_until = input.valid_until ?? null;
    }
    await trx.updateTable('offers').set(columns).where('id', '=', id).execute();
    return getOffer(trx, companyId, id);
  });
}

async function assertCustomer(db: Db, companyId: number, customerId: number) {
  const found = await db
    .selectFrom('customers')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', '=', customerId)
    .executeTakeFirst();
  if (!found) throw unknownReference('customer_id');
}

/** Any offer but an accepted one may be deleted (an accepted offer is a commitment). */
export async function deleteOffer(storage: Storage, companyId: number, id: number) {
  await storage.db.transaction().execute(async (trx) => {
    const existing = await getOfferRow(trx, companyId, id, {
      lock: storage.dialect === 'postgres',
    });
    if (existing.status === 'accepted') {
      throw new Conflict('An accepted offer cannot be deleted.');
    }
    await trx.deleteFrom('offers').where('id', '=', id).execute();
  });
}
