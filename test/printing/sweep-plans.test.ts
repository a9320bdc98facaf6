import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expiringJobs, heldJobs } from '../../server/printing/store/common/sweep-jobs.ts';
import {
  databaseKinds,
  indexNamesOf,
  queryPlanOf,
  startTestServerOn,
} from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';

/**
 * The sweep finds the jobs to expire and the jobs held too long through the queue's own
 * partial index (every queued job), not through indexes of their own that every create and
 * claim would pay an entry in (migrations 039 and 041). The statements name the status as a
 * literal: a partial index applies only then (SQLite's parameters are `+?`, which its planner
 * does not look through: server/storage/sqlite-driver.ts).
 */
describe.each(databaseKinds)("the sweep's reads on %s", (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServerOn(kind);
  });
  afterAll(() => server?.close());

  const stamp = '2026-11-29T08:00:00Z';

  it('expires queued jobs past their time through the queue index', async () => {
    const { db } = server.app.services.storage;
    const plan = await queryPlanOf(server, expiringJobs(db, stamp).compile());
    expect(plan).toContain('print_jobs_queue');
    expect(plan).not.toContain('print_jobs_expiry');
  });

  it('marks the jobs held too long through the queue index', async () => {
    const { db } = server.app.services.storage;
    const plan = await queryPlanOf(server, heldJobs(db, stamp, stamp).compile());
    expect(plan).toContain('print_jobs_queue');
  });

  it('keeps no index of its own', async () => {
    const indexes = await indexNamesOf(server, 'print_jobs');
    expect(indexes).toContain('print_jobs_queue');
    expect(indexes).not.toContain('print_jobs_expiry');
    expect(indexes).not.toContain('print_jobs_held');
  });
});
