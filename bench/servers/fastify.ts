import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { type CustomerInput, customerInput } from '../../shared/customers.ts';
import { fromCents, toCents } from '../../shared/money.ts';

/**
 * The baseline an integrator would otherwise pick: Fastify 5 (logger off) over
 * better-sqlite3 on the same schema (ShopDesk's migrations ran on this file), doing the
 * same work per request as ShopDesk: bearer token → sha256 → a lookup in `tokens` on every
 * request (a prepared statement, as a Fastify user would write it; no cache), permission
 * check, company-scoped queries, zod validation with the same `customerInput` schema, and
 * the same JSON body (serialised by Fastify's default, JSON.stringify).
 */
const at = process.argv.indexOf('--db');
if (at === -1) throw new Error('usage: fastify.ts --db FILE');
const db = new BetterSqlite3(process.argv[at + 1]!);
// The same pragmas as ShopDesk's storage.
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');

interface TokenRow {
  id: number;
  company_id: number;
  permissions: string;
  expires_at: string | null;
  revoked_at: string | null;
}
interface CustomerRow {
  id: number;
  code: string | null;
  name: string;
  type: 'F' | 'J';
  status: 'active' | 'inactive';
  is_customer: number;
  is_supplier: number;
  taxvat: string | null;
  telephone: string | null;
  mobile: string | null;
  email: string | null;
  credit_limit_cents: number | null;
  created_at: string;
  updated_at: string;
}
interface AddressRow {
  id: number;
  zipcode: string;
  street: string;
  district: string;
  city: string;
  state: string;
  number: string;
  complement: string | null;
}

const tokenByHash = db.prepare<[string], TokenRow>(
  'select id, company_id, permissions, expires_at, revoked_at from tokens where hash = ?',
);
const customerById = db.prepare<[number, number], CustomerRow>(
  'select * from customers where company_id = ? and id = ?',
);
// `--sort-in-js`: the same SQL as ShopDesk (no ORDER BY, sorted in JS), to tell what the
// framework costs apart from what that query choice saves (see docs/benchmarks.md).
const sortInJs = process.argv.includes('--sort-in-js');
const addressColumns = 'id, zipcode, street, district, city, state, number, complement';
const addressesOf = db.prepare<[number], AddressRow & { position?: number }>(
  sortInJs
    ? `select ${addressColumns}, position from customer_addresses where customer_id = ?`
    : `select ${addressColumns} from customer_addresses where customer_id = ? order by position`,
);
function addressesOfCustomer(customerId: number): AddressRow[] {
  const rows = addressesOf.all(customerId);
  if (!sortInJs) return rows;
  return rows
    .sort((a, b) => a.position! - b.position!)
    .map(({ position: _position, ...address }) => address);
}
const customerByCode = db.prepare<[number, string], { id: number }>(
  'select id from customers where company_id = ? and code = ?',
);
const insertCustomer = db.prepare(
  `insert into customers (company_id, code, name, type, status, is_customer, is_supplier, taxvat,
     telephone, mobile, email, credit_limit_cents, created_at, updated_at)
   values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);
const insertAddress = db.prepare(
  `insert into customer_addresses (customer_id, position, zipcode, street, district, city, state,
     number, complement) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);

class Refusal extends Error {
  readonly status: number;
  readonly errors: Record<string, string[]> | undefined;
  constructor(status: number, message: string, errors?: Record<string, string[]>) {
    super(message);
    this.status = status;
    this.errors = errors;
  }
}

interface Caller {
  companyId: number;
  permissions: Set<string>;
}

function authenticate(request: FastifyRequest): Caller {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!bearer) throw new Refusal(401, 'Authentication required.');
  const row = tokenByHash.get(createHash('sha256').update(bearer).digest('hex'));
  if (
    !row ||
    row.revoked_at !== null ||
    (row.expires_at && Date.parse(row.expires_at) <= Date.now())
  ) {
    throw new Refusal(401, 'The token is invalid, expired or revoked.');
  }
  return { companyId: row.company_id, permissions: new Set(JSON.parse(row.permissions)) };
}

function requirePermission(caller: Caller, permission: string): void {
  if (!caller.permissions.has(permission)) {
    throw new Refusal(403, `This token lacks the permission ${permission}.`);
  }
}

function readCustomer(companyId: number, id: number) {
  const row = customerById.get(companyId, id);
  if (!row) return undefined;
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    type: row.type,
    status: row.status,
    roles: [
      ...(row.is_customer ? (['customer'] as const) : []),
      ...(row.is_supplier ? (['supplier'] as const) : []),
    ],
    taxvat: row.taxvat,
    telephone: row.telephone,
    mobile: row.mobile,
    email: row.email,
    credit_limit: row.credit_limit_cents === null ? null : fromCents(row.credit_limit_cents),
    addresses: addressesOfCustomer(row.id),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const isoNow = () => `${new Date().toISOString().slice(0, 19)}Z`;

const createCustomer = db.transaction((companyId: number, input: CustomerInput) => {
  if (input.code && customerByCode.get(companyId, input.code)) {
    throw new Refusal(422, 'The code has already been taken.', {
      code: ['The code has already been taken.'],
    });
  }
  const stamp = isoNow();
  const { lastInsertRowid } = insertCustomer.run(
    companyId,
    input.code ?? null,
    input.name,
    input.type,
    input.status ?? 'active',
    (input.roles ?? ['customer']).includes('customer') ? 1 : 0,
    (input.roles ?? ['customer']).includes('supplier') ? 1 : 0,
    input.taxvat || null,
    input.telephone ?? null,
    input.mobile ?? null,
    input.email ?? null,
    input.credit_limit == null ? null : toCents(input.credit_limit),
    stamp,
    stamp,
  );
  const id = Number(lastInsertRowid);
  (input.addresses ?? []).forEach((address, position) => {
    insertAddress.run(
      id,
      position,
      address.zipcode,
      address.street,
      address.district,
      address.city,
      address.state,
      address.number,
      address.complement ?? null,
    );
  });
  return readCustomer(companyId, id)!;
});

const app = Fastify({ logger: false });

app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply: FastifyReply) => {
  if (error instanceof Refusal) {
    if (error.status === 401) reply.header('www-authenticate', 'Bearer realm="shopdesk"');
    return reply.code(error.status).send({
      success: false,
      message: error.message,
      ...(error.errors && { errors: error.errors }),
    });
  }
  const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
  return reply
    .code(status)
    .send({ success: false, message: status === 500 ? 'Server error.' : error.message });
});

app.get<{ Params: { id: string } }>('/api/v1/customers/:id', async (request) => {
  const caller = authenticate(request);
  requirePermission(caller, 'customers.read');
  const id = /^[1-9]\d{0,15}$/.test(request.params.id) ? Number(request.params.id) : 0;
  const customer = id ? readCustomer(caller.companyId, id) : undefined;
  if (!customer) throw new Refusal(404, 'Customer not found.');
  return { data: customer };
});

app.post('/api/v1/customers', async (request, reply) => {
  const caller = authenticate(request);
  requirePermission(caller, 'customers.create');
  const parsed = customerInput.safeParse(request.body);
  if (!parsed.success) {
    const errors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) {
      const key = issue.path.join('.');
      errors[key] = [...(errors[key] ?? []), issue.message];
    }
    throw new Refusal(422, 'The given data was invalid.', errors);
  }
  const customer = createCustomer(caller.companyId, parsed.data);
  reply.code(201).header('location', `http://${request.headers.host}${request.url}/${customer.id}`);
  return { data: customer };
});

const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`fastify listening on ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
