import type { z } from 'zod';
import { dataOf } from '../../shared/http.ts';
import { productParams } from '../../shared/products.ts';
import {
  bulkStockInput,
  bulkUpdatedRecord,
  productStockRecord,
  stockCodeParams,
  stockUpdateInput,
} from '../../shared/stock.ts';
import { defineRoute, ok } from '../http/route.ts';
import { updateProductStock, updateStock } from './update-stock.ts';

const tag = 'Stock';
const stockRules =
  'Sets (does not add to) the balance of the product in the warehouse named by exactly one of `warehouse_id` or `warehouse_code`, optionally at a location (`location_id` or `location_code`) and for a lot (`lot_id` or `lot_number`). A location code or lot number seen for the first time is created (locations belong to the warehouse, lots to the product); unknown ids, unknown warehouses and products that do not manage stock are 422. Every call records a movement (before, after, observation, token, time).';
const answer = {
  200: { description: "The product's stock after the change.", schema: dataOf(productStockRecord) },
};

/** Setting one product's stock: the same rules and answer whether the path names it by code or by id. */
function productStockRoute<P extends z.ZodType>(spec: {
  path: string;
  operationId: string;
  summary: string;
  params: P;
  product: (params: z.infer<P>) => { id: number } | { code: string };
}) {
  return defineRoute({
    method: 'PUT',
    path: spec.path,
    access: { permission: 'inventory.stock.update' },
    operationId: spec.operationId,
    summary: spec.summary,
    description: stockRules,
    tag,
    idempotent: true,
    params: spec.params,
    body: stockUpdateInput,
    responses: answer,
    async handler({ params, body, caller, services, db }) {
      const product = spec.product(params);
      return ok(
        await updateProductStock(services, db, caller, product, body, services.clock.now()),
      );
    },
  });
}

export const stockRoutes = [
  productStockRoute({
    path: '/inventory/stock/products/by-code/{code}',
    operationId: 'setStockByProductCode',
    summary: 'Set the stock of a product, by product code',
    params: stockCodeParams,
    product: (params) => ({ code: params.code }),
  }),
  productStockRoute({
    path: '/inventory/stock/products/{product}',
    operationId: 'setStockByProductId',
    summary: 'Set the stock of a product',
    params: productParams,
    product: (params) => ({ id: params.product }),
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
    async handler({ body, caller, services, db }) {
      await updateStock(
        services,
        db,
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
