import { type DatabaseKind, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';

/** A receipt template as the tests use it: ReceiptLine with the order's lines. */
export const receiptSource = [
  '^^{{ shop }}',
  'Order | {{ order.number }}',
  '{% for item in items %}{{ item.name }} | {{ item.price | money }}',
  '{% endfor %}-',
  'Total | {{ total | money: "EUR" }}',
  '=',
].join('\n');

export const receiptData = {
  shop: 'Demo Shop',
  order: { number: '1042' },
  items: [
    { name: 'Coffee', price: 2.5 },
    { name: 'Croissant', price: 1.8 },
  ],
  total: 4.3,
};

export const receiptSchema = {
  type: 'object',
  required: ['order', 'items'],
  properties: {
    order: { type: 'object', required: ['number'], properties: { number: { type: 'string' } } },
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'price'],
        properties: { name: { type: 'string' }, price: { type: 'number' } },
      },
    },
  },
};

/** Creates a template; its record. */
export async function createTemplate(
  server: TestServer,
  token: string,
  body: Record<string, unknown> = {},
) {
  const answer = await server.request('POST', '/printing/templates', {
    token,
    body: { name: 'receipt', kind: 'receipt', source: receiptSource, ...body },
  });
  if (answer.status !== 201) {
    throw new Error(`create template: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body.data;
}

/** A request whose answer is bytes (a preview): status, content type and the body. */
export async function fetchBytes(
  server: TestServer,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; contentType: string; bytes: Buffer }> {
  const response = await fetch(`${server.api}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

/**
 * A server on `kind` with one company and a token that keeps templates and prints from them
 * (what a shop's till needs).
 */
export async function startTemplateShop(
  kind: DatabaseKind,
  companyName: string,
): Promise<{ server: TestServer; company: number; token: string }> {
  const server = await startTestServerOn(kind);
  const company = await server.createCompany(companyName);
  const token = await server.token(company, [
    'printing.templates.read',
    'printing.templates.write',
    'printing.jobs.create',
    'printing.jobs.read',
  ]);
  return { server, company, token };
}
