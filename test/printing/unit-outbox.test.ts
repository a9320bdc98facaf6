import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { localReceivers } from '../webhooks/helpers.ts';
import { companyWithAgent, createJob } from './helpers.ts';

/**
 * The queue's operations that write several statements (a release, a reprint) write their
 * webhook outbox rows in the store's unit of work (server/printing/store/common/), read
 * through `JobChanges.outboxFor` before or inside it, on both databases.
 */
describe.each(databaseKinds)('outbox rows of the units of work on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServerOn(kind, { config: localReceivers });
  });

  afterAll(async () => {
    await server?.close();
  });

  /** The bodies of the outbox rows of `type`, oldest first. */
  const bodiesOf = async (type: string) =>
    (
      await server.app.services.storage.db
        .selectFrom('webhook_deliveries')
        .select('body')
        .where('type', '=', type as 'print_job.waiting')
        .orderBy('id')
        .execute()
    ).map((row) => JSON.parse(row.body));

  it('a job given back by its agent writes print_job.waiting with its wait reason; a reprint print_job.created', async () => {
    const { company, integrator, agent } = await companyWithAgent(server, 'units');
    const manager = await server.token(company, ['webhooks.manage']);
    const endpoint = await server.request('POST', '/webhooks', {
      token: manager,
      body: {
        url: 'http://127.0.0.1:9/hooks',
        events: ['print_job.waiting', 'print_job.created'],
      },
    });
    expect(endpoint.status).toBe(201);
    const job = await createJob(server, integrator, { route: 'units' });
    expect((await agent.next()).body.data.id).toBe(job.id);
    const released = await agent.call('POST', `/printing/jobs/${job.id}/release`, {
      code: 'printer_out_of_paper',
      message: 'printer EPSON is out of paper',
    });
    expect(released.status).toBe(200);
    const waiting = await bodiesOf('print_job.waiting');
    expect(waiting).toHaveLength(1);
    expect(waiting[0].data).toMatchObject({
      id: job.id,
      status: 'queued',
      wait_reason: { code: 'printer_out_of_paper' },
    });

    expect((await agent.next()).body.data.id).toBe(job.id);
    expect((await agent.call('POST', `/printing/jobs/${job.id}/confirm`, {})).status).toBe(200);
    const reprint = await server.request('POST', `/printing/jobs/${job.id}/reprint`, {
      token: integrator,
    });
    expect(reprint.status).toBe(201);
    const created = await bodiesOf('print_job.created');
    expect(created.map((body) => body.data.id)).toEqual([job.id, reprint.body.data.id]);
    expect(created[1].data).toMatchObject({ reprint_of: job.id, status: 'queued' });
  });
});
