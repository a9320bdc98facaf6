import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoNow } from '../../server/time.ts';
import { startTestServerOn } from '../helpers/databases.ts';
import { count, sentDuring } from '../helpers/pg-sent.ts';
import type { TestServer } from '../helpers/server.ts';
import { localReceivers, outboxRows } from '../webhooks/helpers.ts';
import { companyWithAgent, createJob, registerAgent } from './helpers.ts';

/**
 * On PostgreSQL the fails that arrive in one turn of the event loop are one batch and one
 * statement (server/printing/store/postgres/fail-job.ts, through the store's one batcher),
 * each fail made as the one-job statement makes it. The statements are read off `pg`'s
 * client as they are sent.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServerOn('postgres', { config: localReceivers });
});

afterAll(async () => {
  await server?.close();
});

/** Two agents of one company, holding three jobs: the first agent two, the second one. */
async function threeHeld(route: string) {
  const { company, integrator, agent } = await companyWithAgent(server, route);
  const second = await registerAgent(server, company, [route]);
  const jobs = [
    await createJob(server, integrator, { route }),
    await createJob(server, integrator, { route }),
    await createJob(server, integrator, { route }),
  ];
  expect((await agent.next()).body.data.id).toBe(jobs[0]!.id);
  expect((await second.next()).body.data.id).toBe(jobs[1]!.id);
  expect((await agent.next()).body.data.id).toBe(jobs[2]!.id);
  const ids = jobs.map((job) => job!.id);
  const fail = (jobId: number, agentUuid: string, message: string) =>
    server.app.services.printing.store.fail(server.app.services.storage.db, {
      jobId,
      companyId: company,
      agentUuid,
      message,
      code: null,
      now: isoNow(),
    });
  return { company, integrator, agent, second, ids, fail };
}

describe('the fails of one turn on PostgreSQL, one statement', () => {
  it('each holder fails its own job with its message; a repeat and a non-holder change nothing', async () => {
    const { integrator, agent, second, ids, fail } = await threeHeld('fail-burst');
    const [first, other, third] = ids as [number, number, number];
    const burst = await sentDuring(() =>
      Promise.all([
        fail(first, agent.uuid, 'Paper jam'),
        fail(other, second.uuid, 'Cover open'),
        fail(third, agent.uuid, 'Out of ink'),
        fail(third, agent.uuid, 'Out of ink'),
        fail(first, second.uuid, 'Not mine'),
      ]),
    );
    expect(count(burst.sent, /^with "input"/)).toBe(1);
    expect(count(burst.sent, /^with "failed"/)).toBe(0);
    expect(count(burst.sent, /^(begin|commit)/)).toBe(0);
    const [mine, theirs, once, again, notHolder] = burst.result;
    expect(mine).toMatchObject({ id: first, status: 'failed', error_message: 'Paper jam' });
    expect(theirs).toMatchObject({ id: other, status: 'failed', agent_id: second.uuid });
    expect(once).toMatchObject({ id: third, status: 'failed', error_message: 'Out of ink' });
    // As if sent one after the other: the repeat finds the job failed already.
    expect(again).toBeUndefined();
    expect(notHolder).toBeUndefined();
    const trail = async (id: number) =>
      (await server.request('GET', `/printing/jobs/${id}`, { token: integrator })).body.data.events;
    expect((await trail(first)).at(-1)).toMatchObject({
      from: 'claimed',
      to: 'failed',
      agent_id: agent.uuid,
      message: 'Paper jam',
    });
    expect((await trail(third)).map((event: { to: string }) => event.to)).toEqual([
      'queued',
      'claimed',
      'failed',
    ]);
  });

  it('with an endpoint that takes print_job.failed: one outbox row a failed job, in the statement’s transaction', async () => {
    const { company, agent, second, ids, fail } = await threeHeld('fail-hooked');
    const manager = await server.token(company, ['webhooks.manage']);
    const endpoint = await server.request('POST', '/webhooks', {
      token: manager,
      body: { url: 'http://127.0.0.1:9/hooks', events: ['print_job.failed'] },
    });
    expect(endpoint.status).toBe(201);
    const before = await outboxRows(server);
    const burst = await sentDuring(() =>
      Promise.all([
        fail(ids[0]!, agent.uuid, 'Paper jam'),
        fail(ids[1]!, second.uuid, 'Cover open'),
        fail(ids[1]!, agent.uuid, 'Not mine'),
      ]),
    );
    expect(count(burst.sent, /^with "input"/)).toBe(1);
    expect(count(burst.sent, /^insert into "webhook_deliveries"/)).toBe(1);
    expect(count(burst.sent, /^(begin|commit)/)).toBe(2);
    expect(burst.result.map((row) => row?.status)).toEqual(['failed', 'failed', undefined]);
    expect(await outboxRows(server)).toBe(before + 2);
  });
});
