import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimJob } from '../../server/printing/jobs/claim-job.ts';
import { PrintJobChanges } from '../../server/printing/jobs/job-changes.ts';
import { releaseLostClaim } from '../../server/printing/store/postgres/release-lost-claim.ts';
import { isoNow } from '../../server/time.ts';
import { startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { companyWithAgent, createJob } from './helpers.ts';

/**
 * A claim whose connection was lost may still be waiting to run on PostgreSQL when the
 * server gives it back: the first look finds nothing, and the claim commits after it.
 * releaseLostClaim looks again for a second (docs/printing.md).
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServerOn('postgres');
});

afterAll(async () => {
  await server?.close();
});

async function setUp(route: string) {
  const { company, integrator, agent } = await companyWithAgent(server, route);
  const job = await createJob(server, integrator, { route });
  const storage = server.app.services.storage;
  const ref = await server.app.services.printing.requireAgent(storage.db, agent.uuid, company);
  // The store's own parts, as the PostgreSQL store gives them to releaseLostClaim.
  const context = {
    storage,
    changes: new PrintJobChanges(server.app.services.outbox, () => {}),
  };
  return { storage, context, job, ref };
}

const statusOf = async (id: number) =>
  server.app.services.storage.db
    .selectFrom('print_jobs')
    .select(['status', 'agent_id', 'attempts'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('giving back a claim whose answer was lost (PostgreSQL)', () => {
  it('a claim that commits after the first look is still given back: queued, attempts restored, no claim event', async () => {
    const { storage, context, job, ref } = await setUp('late');
    const now = new Date();
    const claimedAt = isoNow(now);
    // The first look is the first transaction releaseLostClaim opens: known when it ends.
    const transaction = storage.transaction;
    let firstLookDone!: () => void;
    const firstLook = new Promise<void>((resolve) => {
      firstLookDone = resolve;
    });
    storage.transaction = async (db, work) => {
      try {
        return await transaction(db, work);
      } finally {
        firstLookDone();
      }
    };
    let claim: Awaited<ReturnType<typeof claimJob>>;
    try {
      const releasing = releaseLostClaim(context, {
        companyId: ref.companyId,
        agentUuid: ref.uuid,
        claimedAt,
      });
      await firstLook;
      // The lost statement runs only now, after the first look found nothing.
      claim = await claimJob(server.app.services.printing.queue, storage.db, ref, now, 60);
      await releasing;
    } finally {
      storage.transaction = transaction;
    }
    expect(claim?.job.id).toBe(job.id);
    expect(await statusOf(job.id)).toEqual({ status: 'queued', agent_id: null, attempts: 0 });
    const events = await storage.db
      .selectFrom('print_job_events')
      .select('to_status')
      .where('job_id', '=', job.id)
      .execute();
    expect(events.map((event) => event.to_status)).toEqual(['queued']);
  });

  it('leaves alone a claim of the same agent made at another time', async () => {
    const { storage, context, job, ref } = await setUp('other-time');
    const claim = await claimJob(
      server.app.services.printing.queue,
      storage.db,
      ref,
      new Date(),
      60,
    );
    expect(claim?.job.id).toBe(job.id);
    await releaseLostClaim(context, {
      companyId: ref.companyId,
      agentUuid: ref.uuid,
      claimedAt: isoNow(new Date(Date.now() - 5000)),
    });
    expect(await statusOf(job.id)).toMatchObject({ status: 'claimed', agent_id: ref.uuid });
  });
});
