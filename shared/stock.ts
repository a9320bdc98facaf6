import { z } from 'zod';
import { idSchema, recordId } from './http.ts';
import {
  atMostOne,
  atMostOneSchema,
  exactlyOne,
  exactlyOneSchema,
  maxBulkItems,
  stockBalanceRecord,
} from './products.ts';
import { quantitySchema } from './quantity.ts';

/** Contracts of stock (docs/reference.md: the stock update payload and its three rules). */

export const stockUpdateFields = {
  quantity: quantitySchema,
  warehouse_id: idSchema.optional(),
  warehouse_code: z.string().min(1).max(20).optional(),
  location_id: idSchema.optional(),
  location_code: z.string().min(1).max(50).optional(),
  lot_id: idSchema.optional(),
  lot_number: z.string().min(1).max(100).optional(),
  observation: z.string().max(1000).optional(),
};

type Fields = Record<string, unknown>;

/** Rules 1–3: exactly one warehouse key; location id xor code; lot id xor number. */
export function checkStockRules(value: Fields, ctx: z.RefinementCtx): void {
  exactlyOne(value, ctx, 'warehouse_id', 'warehouse_code');
  atMostOne(value, ctx, 'location_id', 'location_code');
  atMostOne(value, ctx, 'lot_id', 'lot_number');
}

/** The three rules as JSON Schema states them (the OpenAPI document). */
const stockRulesSchema = [
  exactlyOneSchema('warehouse_id', 'warehouse_code'),
  atMostOneSchema('location_id', 'location_code'),
  atMostOneSchema('lot_id', 'lot_number'),
];

// The exclusivity rules are reported alongside the field errors, once the body is an object.
const always = {
  when: (payload: { value: unknown }) =>
    typeof payload.value === 'object' && payload.value !== null,
};

export const stockUpdateInput = z
  .object(stockUpdateFields)
  .superRefine((value, ctx) => checkStockRules(value, ctx), always)
  .meta({ examples: [{ warehouse_code: 'MAIN', quantity: 12 }], allOf: stockRulesSchema });
export type StockUpdateInput = z.infer<typeof stockUpdateInput>;

export const bulkStockItem = z
  .object({
    product_id: idSchema.optional(),
    product_code: z.string().min(1).max(100).optional(),
    ...stockUpdateFields,
  })
  .superRefine((value, ctx) => {
    exactlyOne(value, ctx, 'product_id', 'product_code');
    checkStockRules(value, ctx);
  }, always)
  .meta({ allOf: [exactlyOneSchema('product_id', 'product_code'), ...stockRulesSchema] });
export type BulkStockItem = z.infer<typeof bulkStockItem>;

export const bulkStockInput = z.object({
  items: z.array(bulkStockItem).min(1).max(maxBulkItems),
});
export type BulkStockInput = z.infer<typeof bulkStockInput>;

/** What the stock routes answer: the product's stock after the change. */
export const productStockRecord = z.object({
  product_id: recordId,
  product_code: z.string(),
  quantity: z.number(),
  balances: z.array(stockBalanceRecord),
});
export type ProductStockRecord = z.infer<typeof productStockRecord>;

export const stockCodeParams = z.object({ code: z.string().min(1).max(100) });

export { bulkUpdatedRecord } from './products.ts';
