import { dataOf } from '../../shared/http.ts';
import { productParams } from '../../shared/products.ts';
import {
  bulkStockInput,
  bulkUpdatedRecord,
  type ProductStockRecord,
  productStockRecord,
  stockCodeParams,
  stockUpdateInput,
} from '../../shared/stock.ts';
import { defineRoute, ok } from '../http/route.ts';
import { getProductRow } from '../products/read-products.ts';
import type { Storage } from '../storage/database.ts';
import type { Caller } from '../tokens/authenticate.ts';
import { balancesOf, stockOf } from './balances.ts';
import type { StockChange } from './resolve-changes.ts';
import { setStock } from './set-stock.ts';

const tag = 'Stock';
const stockRules =
  'Sets (does not add to) the balance of the product in the warehouse named by exactly one of `warehouse_id` or `warehouse_code`, optionally at a location (`location_id` or `location_code`) and for a lot (`lot_id` or `lot_number`). A location code or lot number seen for the first time is created (locations belong to the warehouse, lots to the product); unknown ids, unknown warehouses and products that do not manage stock are 422. Every call records a movement (before, after, observation, token, time).';
const answer = {
  200: { description: "The product's stock after the change.", schema: dataOf(productStockRecord) },
};

async function setOne(
  storage: Storage,
  caller: Caller,
  by: { id: number } | { code: string },
  body: StockChange,
  now: Date,
): Promise<ProductStockRecord> {
  const product = await getProductRow(storage.db, caller.companyId, by);
  // The product comes from the path: a product that does not manage stock is keyed `product`.
  await setStock(
    storage,
    caller.companyId,
    caller.tokenId,
    [{ ...body, product_id: product.id, product_code: undefined }],
    (_index, field) => (field === 'product_id' || field === 'product_code' ? 'product' : field),
    now,
  );
  const balances = (await balancesOf(storage.db, caller.companyId, [product.id])).get(product.id);
  return { product_id: product.id, product_code: product.code, ...stockOf(balances ?? []) };
}

export const stockRoutes = [
  defineRoute({
    method: 'PUT',
    path: '/inventory/stock/products/by-code/{code}',
    access: { permission: 'inventory.stock.update' },
    operationId: 'setStockByProductCode',
    summary: 'Set the stock of a product, by product code',
    description: stockRules,
    tag,
    idempotent: true,
    params: stockCodeParams,
    body: stockUpdateInput,
    responses: answer,
    async handler({ params, body, caller, services }) {
      return ok(
        await setOne(services.storage, caller, { code: params.code }, body, services.clock.now()),
      );
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/inventory/stock/products/{product}',
    access: { permission: 'inventory.stock.update' },
    operationId: 'setStockByProductId',
    summary: 'Set the stock of a product',
    description: stockRules,
    tag,
    idempotent: true,
    params: productParams,
    body: stockUpdateInput,
    responses: answer,
    async handler({ params, body, caller, services }) {
      return ok(
        await setOne(services.storage, caller, { id: params.product }, body, services.clock.now()),
      );
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/inventory/stock/bulk',
    access: { permission: 'inventory.stock.update' },
    operationId: 'setStockBulk',
    summary: 'Set many stock balances at once',
    description: `Up to 1,000 items, each \`product_id\` or \`product_code\` plus the stock payload. All or nothing, in one transaction: any invalid item is a 422 keyed \`items.N.field\` and nothing changes. Items that set one balance twice apply in order. \`updated\` counts the items applied. ${stockRules}`,
    tag,
    idempotent: true,
    body: bulkStockInput,
    responses: {
      200: { description: 'How many items were applied.', schema: dataOf(bulkUpdatedRecord) },
    },
    async handler({ body, caller, services }) {
      await setStock(
        services.storage,
        caller.companyId,
        caller.tokenId,
        body.items,
        (index, field) => `items.${index}.${field}`,
        services.clock.now(),
      );
      return ok({ updated: body.items.length });
    },
  }),
];
