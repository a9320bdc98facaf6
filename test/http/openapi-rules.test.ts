import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../server/http/openapi.ts';
import { apiRoutes } from '../../server/routes.ts';

/**
 * The OpenAPI document says what the server checks (docs/http.md, "What the document
 * states"): the X-Agent-Id header of the routes that read it and its 400/409, and the rules
 * that zod writes as refinements (decimal places, either-or fields, URL form, no NUL).
 */
// biome-ignore lint/suspicious/noExplicitAny: the document is read by path.
const doc = buildOpenApi(apiRoutes, 'test') as any;
// biome-ignore lint/suspicious/noExplicitAny: as above.
const operations = new Map<string, any>();
for (const methods of Object.values(doc.paths)) {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  for (const operation of Object.values(methods as Record<string, any>)) {
    operations.set(operation.operationId, operation);
  }
}
// biome-ignore lint/suspicious/noExplicitAny: as above.
const bodyOf = (id: string): any =>
  operations.get(id).requestBody.content['application/json'].schema;

describe('X-Agent-Id', () => {
  const readers = {
    printAgentHeartbeat: true,
    getPrintAgentConfig: true,
    putPrintRoutes: true,
    claimNextPrintJob: true,
    confirmPrintJob: true,
    reportPrintJobError: true,
    releasePrintJob: true,
    printAgentOffline: true,
    listPrintHistory: false,
    getPrintJob: false,
    retryPrintJob: false,
    reprintPrintJob: false,
    getAgentUpdateFile: false,
  };

  it('is declared on exactly the 13 routes that read it, required where it must be sent', () => {
    const declared = [...operations.values()].flatMap((operation) => {
      // biome-ignore lint/suspicious/noExplicitAny: as above.
      const header = operation.parameters.find((one: any) => one.name === 'X-Agent-Id');
      return header ? [[operation.operationId, header.required]] : [];
    });
    expect(Object.fromEntries(declared)).toEqual(readers);
  });

  it('with its 400 and 409 on the routes that check it', () => {
    for (const id of Object.keys(readers)) {
      const statuses = Object.keys(operations.get(id).responses);
      if (id === 'getAgentUpdateFile') continue; // a hint: a bad value is ignored
      expect(statuses, id).toEqual(expect.arrayContaining(['400', '409']));
    }
  });
});

describe('rules written as refinements are stated too', () => {
  it('decimal places: money 0.01, quantities 0.001', () => {
    const customer = bodyOf('createCustomer');
    expect(customer.properties.credit_limit.anyOf ?? [customer.properties.credit_limit]).toEqual(
      expect.arrayContaining([expect.objectContaining({ multipleOf: 0.01 })]),
    );
    const stock = bodyOf('setStockByProductId');
    expect(stock.properties.quantity.multipleOf).toBe(0.001);
  });

  it('either-or fields: exactly one of two, at most one of two', () => {
    const stock = bodyOf('setStockByProductId');
    expect(stock.allOf).toEqual([
      { oneOf: [{ required: ['warehouse_id'] }, { required: ['warehouse_code'] }] },
      { not: { required: ['location_id', 'location_code'] } },
      { not: { required: ['lot_id', 'lot_number'] } },
    ]);
    const prices = bodyOf('updateProductPrices');
    expect(prices.properties.items.items.allOf).toEqual([
      { oneOf: [{ required: ['product_id'] }, { required: ['code'] }] },
    ]);
  });

  it('a webhook URL is a URI', () => {
    expect(bodyOf('createWebhook').properties.url.format).toBe('uri');
  });

  it('no NUL in free text, at any depth, in bodies and parameters', () => {
    const customer = bodyOf('createCustomer');
    expect(customer.properties.name.not).toEqual({ pattern: '\\u0000' });
    expect(customer.properties.addresses.items.properties.street.not).toEqual({
      pattern: '\\u0000',
    });
    const search = operations
      .get('listCustomers')
      .parameters.find((one: { name: string }) => one.name === 'search');
    expect(search.schema.not).toEqual({ pattern: '\\u0000' });
    expect(new RegExp(search.schema.not.pattern, 'u').test('a\u0000b')).toBe(true);
  });
});
