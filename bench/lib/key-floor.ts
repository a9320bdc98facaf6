import { randomUUID } from 'node:crypto';
import Sqlite from 'better-sqlite3';
import type { CustomerInput } from '../../shared/customers.ts';
import { toCents } from '../../shared/money.ts';

/**
 * The floor of an `Idempotency-Key` on a create (docs/benchmarks.md, the `Idempotency-Key` row):
 * ShopDesk's create statements for `POST /customers` on raw better-sqlite3, on a copy of
 * the bench's database (ShopDesk's schema), grouped as ShopDesk's group commit groups them
 * (one `BEGIN IMMEDIATE`, a savepoint per create, one `COMMIT`), without and with the
 * insert of the key's row (its stored answer of `answerBytes`, under a fresh random key,
 * as the keyed bench sends). No HTTP, no JavaScript of ShopDesk's: what is left is what
 * SQLite itself charges for storing the answer in the transaction of the write.
 */
export interface KeyFloor {
  /** µs of one create, its group's share of BEGIN and COMMIT included. */
  withoutKey: number;
  withKey: number;
}

export function keyRowFloor(
  file: string,
  companyId: number,
  customer: (serial: number) => CustomerInput,
  answerBytes: number,
  options: { creates: number; groupSize: number; rounds: number },
): KeyFloor {
  const db = new Sqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  const insertCustomer = db.prepare(
    `insert into customers (company_id, code, name, type, status, is_customer, is_supplier, taxvat,
       telephone, mobile, email, credit_limit_cents, created_at, updated_at)
     values (?, ?, ?, ?, 'active', 1, 0, ?, ?, ?, ?, ?, ?, ?) returning id`,
  );
  const codeTaken = db.prepare('select id from customers where company_id = ? and code = ?');
  const insertAddress = db.prepare(
    `insert into customer_addresses (customer_id, position, zipcode, street, district, city,
       state, number, complement) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertKey = db.prepare(
    `insert into idempotency_keys (company_id, operation, key, fingerprint, status, body,
       headers, created_at, expires_at) values (?, 'POST /customers', ?, ?, 201, ?, ?, ?, ?)
     on conflict (company_id, operation, key) do nothing returning id`,
  );
  const [begin, savepoint, release, commit] = [
    'begin immediate',
    'savepoint member',
    'release member',
    'commit',
  ].map((text) => db.prepare(text));
  const answer = Buffer.alloc(answerBytes, 'x');
  const fingerprint = 'f'.repeat(64);
  const headers = JSON.stringify({
    'content-type': 'application/json; charset=utf-8',
    location: 'http://127.0.0.1/api/v1/customers/1',
  });
  let serial = 0;

  const create = (keyed: boolean) => {
    const input = customer(++serial);
    const stamp = new Date().toISOString();
    savepoint!.run();
    codeTaken.get(companyId, input.code ?? null);
    const { id } = insertCustomer.get(
      companyId,
      input.code ?? null,
      input.name,
      input.type,
      input.taxvat ?? null,
      input.telephone ?? null,
      input.mobile ?? null,
      input.email ?? null,
      input.credit_limit == null ? null : toCents(input.credit_limit),
      stamp,
      stamp,
    ) as { id: number };
    (input.addresses ?? []).forEach((a, position) => {
      insertAddress.run(
        id,
        position,
        a.zipcode,
        a.street,
        a.district,
        a.city,
        a.state,
        a.number,
        a.complement ?? null,
      );
    });
    if (keyed) insertKey.get(companyId, randomUUID(), fingerprint, answer, headers, stamp, stamp);
    release!.run();
  };
  const timed = (keyed: boolean) => {
    const started = process.hrtime.bigint();
    for (let made = 0; made < options.creates; made += options.groupSize) {
      begin!.run();
      for (let member = 0; member < options.groupSize; member++) create(keyed);
      commit!.run();
    }
    return Number(process.hrtime.bigint() - started) / 1000 / options.creates;
  };
  try {
    timed(false);
    timed(true);
    const runs = { without: [] as number[], with: [] as number[] };
    for (let round = 0; round < options.rounds; round++) {
      runs.without.push(timed(false));
      runs.with.push(timed(true));
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
    return { withoutKey: median(runs.without), withKey: median(runs.with) };
  } finally {
    db.close();
  }
}
