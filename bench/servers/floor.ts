import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import BetterSqlite3 from 'better-sqlite3';
import {
  type AddressRow,
  type CustomerRow,
  toCustomerRecord,
} from '../../server/customers/records.ts';

/**
 * The floor of the read: bare node:http running ShopDesk's SQL for `GET /customers/{id}`
 * and nothing else. It bounds what any server on node:http can reach with that SQL, so
 * the ratio of this server to "Fastify, same SQL" is the most any framework could show
 * there (docs/benchmarks.md, "How to read them").
 *
 * Per request: the `PRAGMA data_version` ShopDesk's token check reads (once per turn of
 * the event loop, as ShopDesk reads it), the customer by company and id, its addresses
 * unordered (sorted in JS), and the record made by ShopDesk's own `toRecord`, as JSON. No
 * token, no permission, no validation, no request id, no error handling: only the first
 * path segment after `/customers/` is read. Not a server anyone should run.
 */
const at = process.argv.indexOf('--db');
if (at === -1) throw new Error('usage: floor.ts --db FILE --company ID');
const companyAt = process.argv.indexOf('--company');
const companyId = Number(process.argv[companyAt + 1]);
const db = new BetterSqlite3(process.argv[at + 1]!);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');

const dataVersion = db.prepare('PRAGMA data_version').pluck();
const customerById = db.prepare<[number, number], CustomerRow>(
  'select * from "customers" where "company_id" = ? and "id" = ?',
);
const addressesOf = db.prepare<[number], AddressRow>(
  'select * from "customer_addresses" where "customer_id" = ?',
);

function readCustomer(id: number) {
  const row = customerById.get(companyId, id);
  if (!row) return undefined;
  return toCustomerRecord(
    row,
    addressesOf.all(row.id).sort((a, b) => a.position - b.position),
  );
}

const prefix = '/api/v1/customers/';
let markReadThisTurn = false;
const server = createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
  request.resume();
  if (!markReadThisTurn) {
    markReadThisTurn = true;
    dataVersion.get();
    setImmediate(() => {
      markReadThisTurn = false;
    });
  }
  const customer = readCustomer(Number((request.url ?? '').slice(prefix.length)));
  const text = JSON.stringify(customer ? { data: customer } : { message: 'Record not found.' });
  response.writeHead(customer ? 200 : 404, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`floor listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
