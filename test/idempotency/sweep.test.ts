import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepKeys } from '../../server/idempotency/sweep-keys.ts';
import { isoNow } from '../../server/time.ts';
import { dialects, type Instances, keyCount, startInstances } from '../helpers/instances.ts';

/**
 * The sweep of expired keys (docs/http.md): it walks the keys from the oldest, in batches,
 * and stops at the first one alive; a key stored out of order waits, dead all the same.
 */
describe.each(dialects)('the key sweep on %s', (dialect) => {
  let instances: Instances;
  beforeAll(async () => {
    instances = await startInstances(dialect);
  });
  afterAll(() => instances.close());

  it('deletes every expired key over several batches, and stops at the first alive', async () => {
    const { one } = instances;
    const storage = one.app.services.storage;
    const company = await one.createCompany();
    const now = new Date('2026-11-23T12:00:00Z');
    const at = (seconds: number) => isoNow(new Date(now.getTime() + seconds * 1000));
    const rows = (from: number, count: number, expiresAt: string) =>
      Array.from({ length: count }, (_, n) => ({
        company_id: company,
        operation: 'POST /customers',
        key: `k-${from + n}`,
        fingerprint: '0'.repeat(64),
        status: 201,
        body: Buffer.from('{}'),
        headers: '{}',
        created_at: at(-100),
        expires_at: expiresAt,
      }));
    // 2,500 expired, then 5 alive, then 3 expired stored after them (a shortened TTL).
    for (let from = 0; from < 2500; from += 500) {
      await storage.db
        .insertInto('idempotency_keys')
        .values(rows(from, 500, at(-1)))
        .execute();
    }
    await storage.db
      .insertInto('idempotency_keys')
      .values(rows(2500, 5, at(60)))
      .execute();
    await storage.db
      .insertInto('idempotency_keys')
      .values(rows(2505, 3, at(-1)))
      .execute();
    expect(await sweepKeys(storage, now)).toBe(2500);
    expect(await keyCount(one)).toBe(8);
    expect(await sweepKeys(storage, now)).toBe(0);
    expect(await sweepKeys(storage, new Date(now.getTime() + 60_000))).toBe(8);
    expect(await keyCount(one)).toBe(0);
  });
});
