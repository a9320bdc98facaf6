import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPrintingMarks } from '../../server/printing/index.ts';
import { databaseKinds, indexNamesOf, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { createJob, integratorToken, registerAgent, type TestAgent } from './helpers.ts';

/**
 * The console's live marks follow the id of each company's newest job event (the line that
 * moves when one of its jobs changes status): on PostgreSQL one step of the index of events
 * by company; on SQLite, which has no such index (migration 042), followed from the events
 * written since the last read (server/printing/store/sqlite/newest-events.ts). Either way the
 * answer is the company's newest event id, whatever was written or deleted between reads.
 */
describe.each(databaseKinds)("the live marks' newest event on %s", (kind) => {
  let server: TestServer;
  const companies: Array<{ id: number; integrator: string; agent: TestAgent }> = [];

  beforeAll(async () => {
    server = await startTestServerOn(kind);
    for (const name of ['Marks Co', 'Busy Neighbour']) {
      const id = await server.createCompany(name);
      companies.push({
        id,
        integrator: await integratorToken(server, id),
        agent: await registerAgent(server, id),
      });
    }
  });
  afterAll(() => server?.close());

  /** Each company's newest event as the marks say, and as the trail itself says. */
  async function newest(companyId: number) {
    const { db } = server.app.services.storage;
    const [marks] = await readPrintingMarks(db, companyId, server.app.services.printing);
    const truth = await sql<{ id: number | null }>`select max(id) as id from print_job_events
      where company_id = ${companyId}`.execute(db);
    return { marks: Number(marks), truth: Number(truth.rows[0]?.id ?? 0) };
  }

  const expectExact = async () => {
    for (const company of companies) {
      const { marks, truth } = await newest(company.id);
      expect(marks).toBe(truth);
    }
  };

  it('answers 0 for a company without jobs, then follows its creates, claims and confirms', async () => {
    await expectExact();
    expect((await newest(companies[0]!.id)).marks).toBe(0);
    const [shop, neighbour] = companies as [(typeof companies)[0], (typeof companies)[0]];
    const before = (await newest(shop.id)).marks;
    await createJob(server, shop.integrator);
    const created = (await newest(shop.id)).marks;
    expect(created).toBeGreaterThan(before);
    await expectExact();
    const claimed = await shop.agent.next();
    await expectExact();
    await shop.agent.call('POST', `/printing/jobs/${claimed.body.data.id}/confirm`, {});
    await expectExact();
    expect((await newest(shop.id)).marks).toBeGreaterThan(created);
    // The neighbour prints a lot; the shop's newest does not move, and stays exact.
    const quiet = (await newest(shop.id)).marks;
    for (let n = 0; n < 5; n++) {
      await createJob(server, neighbour.integrator);
      const job = await neighbour.agent.next();
      await neighbour.agent.call('POST', `/printing/jobs/${job.body.data.id}/confirm`, {});
    }
    expect((await newest(shop.id)).marks).toBe(quiet);
    await expectExact();
  });

  it("goes back when the company's newest event is deleted (a claim given back)", async () => {
    const [shop] = companies as [(typeof companies)[0]];
    const { db } = server.app.services.storage;
    const { store } = server.app.services.printing.queue;
    const job = await createJob(server, shop.integrator);
    const claimed = await shop.agent.next();
    expect(claimed.body.data.id).toBe(job.id);
    const claimedAt = (await newest(shop.id)).marks;
    const event = await sql<{ id: number }>`select max(id) as id from print_job_events
      where job_id = ${job.id}`.execute(db);
    expect(event.rows[0]?.id).toBe(claimedAt);
    const givenBack = await store.giveBack(db, {
      companyId: shop.id,
      agentUuid: shop.agent.uuid,
      jobId: job.id,
      eventId: claimedAt,
    });
    expect(givenBack).toBe(true);
    const after = (await newest(shop.id)).marks;
    expect(after).toBeLessThan(claimedAt);
    await expectExact();
  });

  it('keeps no index of events by company on SQLite, and one on PostgreSQL', async () => {
    const indexes = await indexNamesOf(server, 'print_job_events');
    expect(indexes.includes('print_job_events_company_id')).toBe(kind === 'postgres');
  });
});
