import { fromCents, maxMoney, toCents } from '../../shared/money.ts';
import type { OfferInput, QuoteWarning } from '../../shared/offers.ts';
import { fromMilli, toMilli } from '../../shared/quantity.ts';
import { customerExists } from '../customers/index.ts';
import { FieldErrors, invalidField } from '../domain-errors.ts';
import { findProducts } from '../products/index.ts';
import { readAvailableMilli } from '../stock/index.ts';
import type { Db } from '../storage/db.ts';
import { lineTotalCents, toBasisPoints } from './pricing.ts';

// Totals stay exact doubles (below 2^53) when capped like any money field.
const maxMoneyCents = toCents(maxMoney);

/** A line priced and ready to store. */
export interface PricedLine {
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
   * When the lines are saved: hold the products until `db`'s transaction ends (a key-share
   * lock, PostgreSQL), so that one deleted meanwhile is either gone before (422) or deleted
   * after (its lines keep their copies), never a foreign-key fault.
   */
  lockProducts = false,
): Promise<PricedOffer> {
  const errors = new FieldErrors();
  if (!(await customerExists(db, companyId, input.customer_id))) {
    errors.unknown(`${prefix}customer_id`);
  }
  const ids = [...new Set(input.items.map((item) => item.product_id))];
  const products = await findProducts(
    db,
    companyId,
    { ids },
    lockProducts ? 'key share' : undefined,
  );
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

export function totalsOf(
  lines: { total_cents: number }[],
  discount: number | undefined,
  prefix: string,
) {
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
  const available = await readAvailableMilli(db, companyId, [...requested.keys()]);
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
