import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../server/companies/create-company.ts';
import { createWarehouse } from '../../server/stock/create-warehouse.ts';
import { openStorage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';
import { createToken } from '../../server/tokens/create-token.ts';
import { permissions } from '../../shared/permissions.ts';
import { paulista } from '../customers/payloads.ts';
import { startServe as startServeProcess } from '../helpers/serve-process.ts';
import type { Answer } from '../helpers/server.ts';

/**
 * Durability (docs/storage.md): the server survives `kill -9` under
 * write load with every acknowledged write intact. The real `shopdesk serve` runs as a child
 * process on an SQLite file; concurrent clients create customers and set stock (single and
 * bulk) while it is killed, twice; after each restart every write that got a 2xx must read
 * back as acknowledged, and a write cut off in flight must be wholly there or wholly absent.
 */

const dir = mkdtempSync(join(tmpdir(), 'shopdesk-crash-'));
const dbFile = join(dir, 'crash.sqlite');

const workers = 12;
const productsPerWorker = 3;
/** Acknowledged writes per round before the kill: enough that the kill lands mid-load. */
const acksBeforeKill = 400;
/** Each client's loop is bounded; reaching the bound means the kill never came. */
const maxRequestsPerWorker = 2_000;

interface Serve {
  child: ChildProcessWithoutNullStreams;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startServe(): Promise<Serve> {
  const { child, url } = await startServeProcess(['--db', dbFile, '--rate-limit', '0']);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  return { child, url, exited };
}

let token: string;
let serve: Serve | undefined;

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<Omit<Answer, 'headers'>> {
  const response = await fetch(`${serve!.url}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** A write cut off by the kill: it may or may not have committed. */
type InFlight =
  | { kind: 'customer'; code: string; name: string }
  | { kind: 'stock'; quantities: Map<number, number> };

interface Client {
  products: number[];
  /** The last acknowledged quantity per product; absent: never set. */
  stock: Map<number, number>;
  inFlight?: InFlight;
}

/** Every acknowledged customer as the server answered it (201 body), by id. */
const customers = new Map<number, unknown>();
const clients: Client[] = [];
const unexpected: string[] = [];
let acks = 0;

const customerBody = (code: string, name: string) => ({
  name,
  type: 'J',
  code,
  taxvat: '11.222.333/0001-81',
  email: `${code.toLowerCase()}@crash.example`,
  credit_limit: 1234.56,
  addresses: [paulista],
});

/** One client: a bounded sequential loop of writes until the connection fails. */
async function drive(round: number, index: number, kill: () => void): Promise<void> {
  const client = clients[index]!;
  for (let n = 0; n < maxRequestsPerWorker; n++) {
    const op = n % 3;
    let attempt: InFlight;
    let send: () => ReturnType<typeof call>;
    if (op === 0) {
      const code = `R${round}-W${index}-N${n}`;
      const name = `Cliente ${code}`;
      attempt = { kind: 'customer', code, name };
      send = () => call('POST', '/customers', customerBody(code, name));
    } else {
      // Unique per (round, worker, n, product): a stale value cannot pass for a fresh one.
      const value = (j: number) => round * 1_000_000 + n * 100 + j + index / 1000;
      const targets = op === 1 ? [client.products[n % productsPerWorker]!] : client.products;
      const quantities = new Map(targets.map((product, j) => [product, value(j)]));
      attempt = { kind: 'stock', quantities };
      send =
        op === 1
          ? () =>
              call('PUT', `/inventory/stock/products/${targets[0]}`, {
                warehouse_code: 'MAIN',
                quantity: quantities.get(targets[0]!),
              })
          : () =>
              call('PUT', '/inventory/stock/bulk', {
                items: targets.map((product) => ({
                  product_id: product,
                  warehouse_code: 'MAIN',
                  quantity: quantities.get(product),
                  observation: `bulk ${round}/${n}`,
                })),
              });
    }
    client.inFlight = attempt;
    let answer: Awaited<ReturnType<typeof call>>;
    try {
      answer = await send();
    } catch {
      // The server is gone: this write stays "in flight" and the client stops.
      return;
    }
    client.inFlight = undefined;
    if (answer.status < 200 || answer.status > 299) {
      unexpected.push(`${answer.status} ${JSON.stringify(answer.body)}`);
      return;
    }
    if (attempt.kind === 'customer') customers.set(answer.body.data.id, answer.body.data);
    else for (const [product, quantity] of attempt.quantities) client.stock.set(product, quantity);
    if (++acks >= acksBeforeKill * (round + 1)) kill();
  }
}

/** The MAIN balance of each product as the server reads it now (undefined: none). */
async function readStock(products: number[]): Promise<(number | undefined)[]> {
  return Promise.all(
    products.map(async (product) => {
      const answer = await call('GET', `/products/${product}`);
      expect(answer.status).toBe(200);
      const balances: { warehouse_code: string; quantity: number }[] =
        answer.body.data.stock.balances;
      expect(balances.length).toBeLessThanOrEqual(1);
      return balances.find((balance) => balance.warehouse_code === 'MAIN')?.quantity;
    }),
  );
}

async function verify(): Promise<void> {
  expect(unexpected).toEqual([]);
  // Every acknowledged customer, exactly as the server answered its create.
  for (const [id, record] of customers) {
    const answer = await call('GET', `/customers/${id}`);
    expect(answer.status, `customer ${id}`).toBe(200);
    expect(answer.body.data).toEqual(record);
  }
  let maybeCustomers = 0;
  for (const client of clients) {
    const acknowledged = client.products.map((product) => client.stock.get(product));
    const actual = await readStock(client.products);
    const inFlight = client.inFlight;
    if (inFlight?.kind === 'stock') {
      // Committed or not, but never in part (a bulk is one transaction).
      const applied = client.products.map(
        (product) => inFlight.quantities.get(product) ?? client.stock.get(product),
      );
      expect([acknowledged, applied]).toContainEqual(actual);
      if (actual.every((quantity, j) => quantity === applied[j])) {
        for (const [product, quantity] of inFlight.quantities) client.stock.set(product, quantity);
      }
    } else {
      expect(actual).toEqual(acknowledged);
    }
    if (inFlight?.kind === 'customer') {
      const answer = await call('GET', `/customers/by-code/${inFlight.code}`);
      expect([200, 404]).toContain(answer.status);
      if (answer.status === 200) {
        expect(answer.body.data).toMatchObject({ code: inFlight.code, name: inFlight.name });
        customers.set(answer.body.data.id, answer.body.data);
        maybeCustomers++;
      }
    }
    client.inFlight = undefined;
  }
  // Nothing beyond what was acknowledged or cut off in flight.
  const all = await call('GET', '/customers?per_page=1');
  expect(all.body.meta.total).toBe(customers.size);
  expect(maybeCustomers).toBeLessThanOrEqual(workers);
}

beforeAll(async () => {
  const storage = openStorage({ kind: 'sqlite', file: dbFile });
  try {
    await migrateToLatest(storage);
    const companyId = await createCompany(storage.db, 'Crash Co');
    token = (
      await createToken(storage.db, { companyId, permissions: [...permissions], name: 'crash' })
    ).secret;
    await createWarehouse(storage.db, { companyId, code: 'MAIN', name: 'Main' });
  } finally {
    await storage.close();
  }
});

afterAll(async () => {
  if (serve && serve.child.exitCode === null && serve.child.signalCode === null) {
    serve.child.kill('SIGKILL');
    await serve.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('kill -9 under write load (SQLite, WAL, synchronous=NORMAL)', () => {
  it('keeps every acknowledged write across two crashes; in-flight writes are all or nothing', async () => {
    serve = await startServe();
    for (let index = 0; index < workers; index++) {
      const products: number[] = [];
      for (let j = 0; j < productsPerWorker; j++) {
        const made = await call('POST', '/products', {
          manage_stock: true,
          code: `W${index}-P${j}`,
          name: `Produto ${index}/${j}`,
          price: 10,
          unit: 'UN',
        });
        expect(made.status).toBe(201);
        products.push(made.body.data.id);
      }
      clients.push({ products, stock: new Map() });
    }

    for (let round = 0; round < 2; round++) {
      const running = serve;
      let killed = false;
      const kill = () => {
        if (killed) return;
        killed = true;
        // kill -9 by pid: no handler runs, nothing is flushed by the process.
        process.kill(running.child.pid!, 'SIGKILL');
      };
      await Promise.all(clients.map((_, index) => drive(round, index, kill)));
      expect(killed, `the load never reached the kill: ${unexpected.join('; ')}`).toBe(true);
      expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
      // The kill landed mid-load: every client had a write on the wire.
      expect(clients.filter((client) => client.inFlight).length).toBe(workers);

      serve = await startServe();
      await verify();
    }
    expect(customers.size).toBeGreaterThanOrEqual(2 * Math.floor(acksBeforeKill / 3) - workers);

    // A clean stop, then the file itself: intact, still in WAL mode.
    serve.child.kill('SIGTERM');
    expect((await serve.exited).code).toBe(0);
    const db = new BetterSqlite3(dbFile);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  }, 90_000);
});
