import type { Scenario } from './load.ts';
import { type Seed, sampleProduct } from './seed.ts';

export interface CatalogueScenario {
  name: string;
  scenario: Scenario;
  /** Concurrent connections: one for the bulk update, whose figure is ms per request. */
  connections: number;
}

/**
 * Products and stock, measured on ShopDesk alone (the Fastify baseline covers customers):
 * a search that returns a page of 15 products with their stock, a 1,000-item bulk stock
 * update ("in well under a second" is the product's promise; our target 25 ms mean, issue
 * 14), then a create. The search runs first: `%q%` scans the catalogue, so it is timed on the seeded 1,000
 * products, not on those the create scenario adds.
 */
export function catalogueScenarios(seed: Seed, token: string): CatalogueScenario[] {
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  let serial = 0;
  let round = 0;
  return [
    {
      name: 'GET /search/products?q=Bolo',
      connections: 10,
      scenario: { method: 'GET', path: '/api/v1/search/products?q=Bolo', headers: auth },
    },
    {
      name: 'PUT /inventory/stock/bulk (1,000 items)',
      connections: 1,
      scenario: {
        method: 'PUT',
        path: '/api/v1/inventory/stock/bulk',
        headers: json,
        // New quantities every request, so every balance really changes.
        body: () => {
          round++;
          return JSON.stringify({
            items: seed.productCodes.map((code, index) => ({
              product_code: code,
              warehouse_code: seed.warehouseCode,
              quantity: (round * 7 + index) % 500,
              observation: 'bench',
            })),
          });
        },
      },
    },
    {
      name: 'POST /products',
      connections: 10,
      scenario: {
        method: 'POST',
        path: '/api/v1/products',
        headers: json,
        body: () => JSON.stringify(sampleProduct(`N-${++serial}`, seed.categoryId, serial)),
      },
    },
  ];
}
