/**
 * better-sqlite3 against Node's built-in `node:sqlite`, on the statements ShopDesk's hottest
 * routes run, in one process on copies of one seeded database (docs/storage.md, "The SQLite
 * driver"):
 *
 * - read: what an authenticated `GET /customers/{id}` asks SQLite: `PRAGMA data_version`
 *   (the token cache's mark), the customer by company and id, its addresses;
 * - create: what `POST /customers` writes: `BEGIN IMMEDIATE`, the customer, two addresses,
 *   `COMMIT`, then the read above;
 * - claim: the print queue's claim shape on an indexed column bound per call
 *   (`route IN (?) … ORDER BY priority DESC, id LIMIT 1` then an `UPDATE`), where STAT4 can
 *   make better-sqlite3 re-prepare on each new binding.
 *
 * Both drivers get the same pragmas (WAL, synchronous=NORMAL, foreign keys) and prepared
 * statements; rounds alternate, and each prints µs per operation and the ratio.
 *
 *   npx tsx bench/sqlite-drivers.ts [--rounds 5] [--ms 1000]
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Sqlite from 'better-sqlite3';
import { seedDatabases } from './lib/seed.ts';
import { formatTable } from './lib/table.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    ms: { type: 'string', default: '1000' },
  },
});
const rounds = Number(values.rounds);
const roundMs = Number(values.ms);

/** The part of a driver the bench uses: both drivers are given this shape. */
interface Statement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { lastInsertRowid: number | bigint };
}
interface Driver {
  name: string;
  prepare(sqlText: string): Statement;
  close(): void;
}

const pragmas = ['journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON'];

function openBetterSqlite(file: string): Driver {
  const db = new Sqlite(file);
  for (const pragma of pragmas) db.pragma(pragma);
  return {
    name: 'better-sqlite3',
    prepare: (sqlText) => db.prepare(sqlText) as unknown as Statement,
    close: () => db.close(),
  };
}

function openNodeSqlite(file: string): Driver {
  // Loaded lazily: a Node without the module (before 22.5) still runs the other driver.
  const { DatabaseSync } = createRequire(import.meta.url)(
    'node:sqlite',
  ) as typeof import('node:sqlite');
  const db = new DatabaseSync(file);
  for (const pragma of pragmas) db.exec(`PRAGMA ${pragma}`);
  return {
    name: 'node:sqlite',
    prepare: (sqlText) => db.prepare(sqlText) as unknown as Statement,
    close: () => db.close(),
  };
}

interface Workload {
  name: string;
  /** Prepares its statements on a driver; the returned function does one operation. */
  setUp(driver: Driver): () => void;
}

function workloads(companyId: number, customerId: number): Workload[] {
  const readOf = (driver: Driver) => {
    const version = driver.prepare('PRAGMA data_version');
    const customer = driver.prepare('SELECT * FROM customers WHERE company_id = ? AND id = ?');
    const addresses = driver.prepare('SELECT * FROM customer_addresses WHERE customer_id = ?');
    return (id: number) => {
      version.get();
      customer.get(companyId, id);
      addresses.all(id);
    };
  };
  return [
    {
      name: 'read (GET /customers/{id})',
      setUp: (driver) => {
        const read = readOf(driver);
        return () => read(customerId);
      },
    },
    {
      name: 'create (POST /customers)',
      setUp: (driver) => {
        const begin = driver.prepare('BEGIN IMMEDIATE');
        const commit = driver.prepare('COMMIT');
        const customer = driver.prepare(
          `INSERT INTO customers (company_id, code, name, type, status, taxvat, telephone, mobile,
             email, credit_limit_cents, is_customer, is_supplier, created_at, updated_at)
           VALUES (?, NULL, 'Padaria Pão Quente Ltda', 'J', 'active', '12345678000190',
             '+55 11 3333-4444', '+55 11 99999-8888', 'compras@paoquente.example', 150050, 1, 0,
             '2026-11-22T10:00:00.000Z', '2026-11-22T10:00:00.000Z')`,
        );
        const address = driver.prepare(
          `INSERT INTO customer_addresses (customer_id, position, zipcode, street, district, city,
             state, number, complement)
           VALUES (?, ?, '01310100', 'Avenida Paulista', 'Bela Vista', 'São Paulo', 'SP', '1000',
             'Loja 2')`,
        );
        const read = readOf(driver);
        return () => {
          begin.run();
          const id = Number(customer.run(companyId).lastInsertRowid);
          address.run(id, 0);
          address.run(id, 1);
          commit.run();
          read(id);
        };
      },
    },
    {
      name: 'claim shape (indexed column bound per call)',
      setUp: (driver) => {
        driver.prepare('DROP TABLE IF EXISTS bench_jobs').run();
        driver
          .prepare(
            `CREATE TABLE bench_jobs (id INTEGER PRIMARY KEY, route TEXT NOT NULL,
               priority INTEGER NOT NULL, state TEXT NOT NULL)`,
          )
          .run();
        driver
          .prepare('CREATE INDEX bench_jobs_queue ON bench_jobs (route, state, priority DESC, id)')
          .run();
        const insert = driver.prepare(
          `INSERT INTO bench_jobs (route, priority, state) VALUES (?, 0, 'queued')`,
        );
        const routes = Array.from({ length: 20 }, (_, index) => `route-${index}`);
        for (let index = 0; index < 20_000; index++) insert.run(routes[index % routes.length]);
        driver.prepare('ANALYZE').run();
        const pick = driver.prepare(
          `SELECT id FROM bench_jobs WHERE state = 'queued' AND route = ?
           ORDER BY priority DESC, id LIMIT 1`,
        );
        const claim = driver.prepare(`UPDATE bench_jobs SET state = 'claimed' WHERE id = ?`);
        const requeue = driver.prepare(`UPDATE bench_jobs SET state = 'queued' WHERE id = ?`);
        let turn = 0;
        return () => {
          const row = pick.get(routes[turn++ % routes.length]) as { id: number } | undefined;
          if (!row) return;
          claim.run(row.id);
          requeue.run(row.id);
        };
      },
    },
  ];
}

/** Operations done in `ms` of wall time, as µs per operation. */
function timeRound(operation: () => void, ms: number): number {
  let done = 0;
  const started = performance.now();
  let now = started;
  while (now - started < ms) {
    for (let index = 0; index < 100; index++) operation();
    done += 100;
    now = performance.now();
  }
  return ((now - started) * 1000) / done;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const directory = mkdtempSync(join(tmpdir(), 'shopdesk-drivers-'));
try {
  const seedFile = join(directory, 'seed.db');
  const seed = await seedDatabases([seedFile]);
  const rows: string[][] = [];
  for (const workload of workloads(seed.companyId, seed.customerId)) {
    const timings = new Map<string, number[]>();
    const runners = [openBetterSqlite, openNodeSqlite].map((open) => {
      const file = join(directory, `${open.name}.db`);
      copyFileSync(seedFile, file);
      const driver = open(file);
      return { driver, operation: workload.setUp(driver) };
    });
    // Warm both, then alternate rounds so that the machine's moods fall on both alike.
    for (const { operation } of runners) timeRound(operation, 200);
    for (let round = 0; round < rounds; round++) {
      for (const { driver, operation } of round % 2 === 0 ? runners : [...runners].reverse()) {
        const list = timings.get(driver.name) ?? [];
        list.push(timeRound(operation, roundMs));
        timings.set(driver.name, list);
      }
    }
    for (const { driver } of runners) driver.close();
    const better = median(timings.get('better-sqlite3')!);
    const builtIn = median(timings.get('node:sqlite')!);
    rows.push([
      workload.name,
      better.toFixed(1),
      builtIn.toFixed(1),
      `${(better / builtIn).toFixed(2)}x`,
    ]);
  }
  console.log(
    formatTable(
      [
        'workload (median of rounds)',
        'better-sqlite3 µs/op',
        'node:sqlite µs/op',
        'node:sqlite speed',
      ],
      rows,
    ),
  );
} finally {
  rmSync(directory, { recursive: true, force: true });
}
